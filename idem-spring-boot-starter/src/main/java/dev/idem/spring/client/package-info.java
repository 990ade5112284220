/** The client side of a retry: one idempotency key per call, kept across its retries. */
package dev.idem.spring.client;
