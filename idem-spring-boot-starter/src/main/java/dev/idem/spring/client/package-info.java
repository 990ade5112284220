/**
 * The client side of a retry: one idempotency key per call, kept across its retries, for a {@code
 * RestClient} ({@link dev.idem.spring.client.IdempotentRetries}) or a {@code WebClient} ({@link
 * dev.idem.spring.client.IdempotentExchangeRetries}), by one set of rules.
 */
@NullMarked
package dev.idem.spring.client;

import org.jspecify.annotations.NullMarked;
