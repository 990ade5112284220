/** An Actuator health indicator for the idempotency store. */
package dev.idem.spring.health;
