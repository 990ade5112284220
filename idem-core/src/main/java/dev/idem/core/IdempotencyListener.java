package dev.idem.core;

/**
 * Told how each call ended, for metrics and logs. Called on the caller's thread; must be quick and
 * must not throw (what it throws is logged and ignored).
 */
@FunctionalInterface
public interface IdempotencyListener {

  /** Does nothing. */
  IdempotencyListener NONE = (key, outcome) -> {};

  /** One call on {@code key} ended with {@code outcome}. */
  void onOutcome(IdempotencyKey key, ExecutionOutcome outcome);
}
