/**
 * The Actuator endpoint {@code idempotency}: operators read a key's record, release a stuck one and
 * evict a completed one.
 */
package dev.idem.spring.actuate;
