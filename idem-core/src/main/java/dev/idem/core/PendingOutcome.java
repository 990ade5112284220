package dev.idem.core;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of work that ran under a claimed key, held back from the store until the caller
 * settles it: {@link #complete()} once the work's effects are durable (the caller's transaction
 * committed), {@link #release()} when they are gone (it rolled back), {@link #keep()} when nobody
 * can tell. Every outcome is held, a failure that the config calls retryable included: when the
 * transaction commits, the work's writes are there, so the failure is stored and replayed like any
 * answer. Until then the record stays IN_PROGRESS, its lease renewed by the watchdog, so a
 * duplicate is refused or waits as its policy says. Exactly one of the three must be called, once;
 * a second call throws {@link IllegalStateException}. Both may be called from any thread.
 *
 * <p>Handed out by {@link IdempotentCall#deferTo}.
 */
public interface PendingOutcome {

  /** The key the outcome belongs to. */
  IdempotencyKey key();

  /**
   * Stores the held outcome (a return value or any failure the work threw), so that repeats replay
   * it. An outcome the store refuses as too large is stored as {@link Outcome#unstored}.
   *
   * @return false when it was not stored because the lease was taken over meanwhile (logged)
   */
  boolean complete();

  /** Frees the key without storing anything, so that a retry runs the work again. */
  void release();

  /**
   * Neither stores nor frees: the caller cannot tell whether the work's effects are durable (a
   * commit whose reply was lost). The lease is no longer renewed and the record stays IN_PROGRESS
   * until it ends, as after a crash: a duplicate meanwhile is refused or waits, and a retry with
   * the same fingerprint takes over after it, with a greater fence.
   */
  void keep();

  /**
   * Completes each of {@code outcomes} as {@link #complete()} completes one, their store calls sent
   * together ({@link dev.idem.core.store.IdempotencyStore#completeAll}): one round trip for them
   * all instead of one each. Every outcome is tried before the first failure, if any, is thrown.
   *
   * @return what {@link #complete()} returned for each, in order
   */
  static List<Boolean> completeAll(List<? extends PendingOutcome> outcomes) {
    // the engine's outcomes on the store of the first of them go together, any other alone
    @Nullable IdempotencyStore store = null;
    for (PendingOutcome outcome : outcomes) {
      if (outcome instanceof Ownership.Held held) {
        store = held.store();
        break;
      }
    }
    return BatchRun.completeAll(store, outcomes);
  }
}
