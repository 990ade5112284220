package dev.idem.core;

import dev.idem.core.internal.AllListeners;
import java.util.List;

/**
 * Told when each call through the engine begins and how it ended, for metrics, traces and logs.
 * Called on the caller's thread; must be quick and must not throw (what it throws is logged and
 * ignored).
 */
@FunctionalInterface
public interface IdempotencyListener {

  /** Does nothing. */
  IdempotencyListener NONE = (key, outcome) -> {};

  /**
   * A call on {@code key} begins, before its claim. What it returns is run on the same thread once
   * the call has ended, after {@link #onOutcome} (if the call got that far) and whether it returned
   * or threw: a tracing listener opens its span here and ends it there, so that the store calls in
   * between are its children. Does nothing by default.
   */
  default Runnable onStart(IdempotencyKey key) {
    return () -> {};
  }

  /** One call on {@code key} ended with {@code outcome}. */
  void onOutcome(IdempotencyKey key, ExecutionOutcome outcome);

  /**
   * One listener that tells each of {@code listeners} in order: their {@code onStart} in order,
   * what those return in the reverse order (as nested scopes close). One that throws does not keep
   * the others from being told.
   */
  static IdempotencyListener all(List<? extends IdempotencyListener> listeners) {
    List<IdempotencyListener> copy = List.copyOf(listeners);
    return switch (copy.size()) {
      case 0 -> NONE;
      case 1 -> copy.get(0);
      default -> new AllListeners(copy);
    };
  }
}
