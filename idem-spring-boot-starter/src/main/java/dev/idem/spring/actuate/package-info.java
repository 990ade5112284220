/**
 * The Actuator endpoint {@code idempotency}: operators read a key's record, release a stuck one and
 * evict a completed one.
 */
@NullMarked
package dev.idem.spring.actuate;

import org.jspecify.annotations.NullMarked;
