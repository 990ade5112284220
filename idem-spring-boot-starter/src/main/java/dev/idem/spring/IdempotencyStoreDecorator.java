package dev.idem.spring;

import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;

/**
 * Wraps the store that the auto-configured {@link dev.idem.core.Idempotency} engine uses, such as
 * the Micrometer timers of every store call. The store bean itself stays as it is. Every decorator
 * bean is applied, in order. A decorator is a {@link ForwardingIdempotencyStore}, which forwards
 * what the store is (its capabilities, whether it writes in the caller's transaction, its change
 * notices) by final methods: a decorator can wrap calls but cannot take a record out of the
 * caller's transaction or keep waiters from being woken.
 */
@FunctionalInterface
public interface IdempotencyStoreDecorator {

  /** The store to use in place of {@code store}. */
  ForwardingIdempotencyStore decorate(IdempotencyStore store);
}
