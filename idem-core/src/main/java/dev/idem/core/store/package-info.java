/**
 * The store SPI: what a backend implements ({@link dev.idem.core.store.IdempotencyStore}, or {@link
 * dev.idem.core.store.BlockingIdempotencyStore} for one that blocks), the records it keeps and the
 * claims it answers. Applications use the engine ({@link dev.idem.core.Idempotency}) and meet these
 * types only when they write a store or a decorator of one.
 */
@NullMarked
package dev.idem.core.store;

import org.jspecify.annotations.NullMarked;
