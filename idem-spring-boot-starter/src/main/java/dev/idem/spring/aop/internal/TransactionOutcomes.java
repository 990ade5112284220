package dev.idem.spring.aop.internal;

import dev.idem.core.IdempotencyStore;
import dev.idem.core.PendingOutcome;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spring.metrics.TimedIdempotencyStore;
import java.util.function.Consumer;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Ties the outcome of an {@code @Idempotent} method to the Spring transaction around it when the
 * store does not write in that transaction: the outcome is stored after the transaction commits and
 * the key is freed after it rolls back, so a rollback never leaves a replayable answer for an
 * effect that did not happen. Loaded only when spring-tx is on the class path.
 */
public final class TransactionOutcomes {

  private static final ClassLoader LOADER = TransactionOutcomes.class.getClassLoader();
  private static final boolean JDBC =
      ClassUtils.isPresent("dev.idem.jdbc.JdbcIdempotencyStore", LOADER);
  private static final boolean METRICS =
      ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry", LOADER);

  private TransactionOutcomes() {}

  /**
   * Where to hand the outcome of a call made now on {@code store}: a deferral bound to the thread's
   * transaction, or null to store it at once (no transaction, or the store joins it).
   */
  public static Consumer<PendingOutcome> deferral(IdempotencyStore store) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !TransactionSynchronizationManager.isActualTransactionActive()
        || joins(store)) {
      return null;
    }
    return pending ->
        TransactionSynchronizationManager.registerSynchronization(new Settle(pending));
  }

  private static boolean joins(IdempotencyStore store) {
    IdempotencyStore inner = METRICS ? Timed.unwrap(store) : store;
    return JDBC && Jdbc.joins(inner);
  }

  // Holders, so that the optional classes are touched only when they are present.
  private static final class Timed {
    static IdempotencyStore unwrap(IdempotencyStore store) {
      return store instanceof TimedIdempotencyStore timed ? timed.delegate() : store;
    }
  }

  private static final class Jdbc {
    static boolean joins(IdempotencyStore store) {
      return store instanceof JdbcIdempotencyStore jdbc && jdbc.joinsCurrentTransaction();
    }
  }

  private record Settle(PendingOutcome pending) implements TransactionSynchronization {
    @Override
    public void afterCompletion(int status) {
      // an unknown end counts as a rollback: a retry may run again rather than replay nothing
      if (status == STATUS_COMMITTED) {
        pending.complete();
      } else {
        pending.release();
      }
    }
  }
}
