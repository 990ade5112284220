package dev.idem.spring.internal;

import dev.idem.core.Deferral;
import dev.idem.core.PendingOutcome;
import dev.idem.core.store.IdempotencyStore;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Ties the outcome of an {@code @Idempotent} method to the Spring transaction around it when the
 * store does not write in that transaction: the outcome (a thrown exception included) is stored
 * after the transaction commits and the key is freed after it rolls back, so a rollback never
 * leaves a replayable answer for an effect that did not happen, and a commit never frees a key
 * whose effect did; an end Spring cannot report (a commit whose reply was lost) keeps the key until
 * its lease ends. Loaded only when spring-tx is on the class path.
 */
public final class TransactionOutcomes {

  private TransactionOutcomes() {}

  /** True when the calling thread runs in an actual Spring transaction. */
  public static boolean active() {
    return TransactionSynchronizationManager.isActualTransactionActive();
  }

  /**
   * Where to hand the outcome of a call made now on {@code store}: a deferral bound to the thread's
   * transaction, or {@link Deferral#NONE} to store it at once (no transaction, or the store joins
   * it).
   */
  public static Deferral deferral(IdempotencyStore store) {
    if (!synchronizing() || store.joinsCurrentTransaction()) {
      return Deferral.NONE;
    }
    return pending ->
        TransactionSynchronizationManager.registerSynchronization(new Settle(pending));
  }

  /**
   * True when the transaction the running {@code @Transactional} method declared did not begin with
   * it but joined its caller's; false when it began with it, or no declared one runs.
   */
  public static boolean joinedCallers() {
    try {
      return !TransactionAspectSupport.currentTransactionStatus().isNewTransaction();
    } catch (NoTransactionException e) {
      return false;
    }
  }

  /**
   * Where to hand the outcome of a step whose effects are in the thread's transaction: a deferral
   * bound to it, or {@link Deferral#NONE} when none runs. A step's record never joins a
   * transaction, so unlike a call's it is held whatever the store does.
   */
  public static Deferral stepDeferral() {
    if (!synchronizing()) {
      return Deferral.NONE;
    }
    return pending ->
        TransactionSynchronizationManager.registerSynchronization(new Settle(pending));
  }

  /**
   * Runs {@code committed} once the thread's transaction has committed, or {@code rolledBack} once
   * it has rolled back; neither when its end is unknown. False, with nothing registered, when no
   * transaction with synchronization runs. Registered after the outcomes the transaction holds, it
   * runs after they are settled.
   */
  public static boolean whenEnded(Runnable committed, Runnable rolledBack) {
    if (!synchronizing()) {
      return false;
    }
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCompletion(int status) {
            if (status == STATUS_COMMITTED) {
              committed.run();
            } else if (status == STATUS_ROLLED_BACK) {
              rolledBack.run();
            }
          }
        });
    return true;
  }

  /**
   * Runs {@code then} once the thread's transaction ends other than by a commit (rolled back, or
   * its end unknown): before the failure reaches any retry around it.
   */
  public static void unlessCommitted(Runnable then) {
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCompletion(int status) {
            if (status != STATUS_COMMITTED) {
              then.run();
            }
          }
        });
  }

  // an actual transaction whose end synchronizations are told
  private static boolean synchronizing() {
    return TransactionSynchronizationManager.isSynchronizationActive()
        && TransactionSynchronizationManager.isActualTransactionActive();
  }

  /**
   * Settles {@code pending} by how its transaction ended, given as Spring's {@code STATUS_*} (the
   * same numbers for thread-bound and reactive transactions): stored after a commit, freed after a
   * rollback, kept taken when the end is unknown.
   */
  public static void settle(PendingOutcome pending, int status) {
    // an unknown end (a commit whose reply was lost) may have kept the effects: the key stays
    // taken until its lease ends rather than freed for a retry that would run them again
    switch (status) {
      case TransactionSynchronization.STATUS_COMMITTED -> pending.complete();
      case TransactionSynchronization.STATUS_ROLLED_BACK -> pending.release();
      default -> pending.keep();
    }
  }

  private record Settle(PendingOutcome pending) implements TransactionSynchronization {
    @Override
    public void afterCompletion(int status) {
      settle(pending, status);
    }
  }
}
