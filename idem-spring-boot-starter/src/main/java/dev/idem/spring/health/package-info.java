/** An Actuator health indicator for the idempotency store. */
@NullMarked
package dev.idem.spring.health;

import org.jspecify.annotations.NullMarked;
