package dev.idem.spring;

import dev.idem.core.IdempotencyStore;

/**
 * Wraps the store that the auto-configured {@link dev.idem.core.Idempotency} engine uses, such as
 * the Micrometer timers of every store call. The store bean itself stays as it is. Every decorator
 * bean is applied, in order; a decorator must keep the store's capabilities (a store that is a
 * {@link dev.idem.core.RecordChangeNotifier} must stay one).
 */
@FunctionalInterface
public interface IdempotencyStoreDecorator {

  /** The store to use in place of {@code store}. */
  IdempotencyStore decorate(IdempotencyStore store);
}
