package dev.idem.core;

import dev.idem.core.internal.DuplicateWaiter;
import dev.idem.core.internal.LeaseWatchdog;
import dev.idem.core.internal.RunningLease;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs work under a claimed lease: watchdog on, key in the MDC, then stores the outcome (or hands
 * it to the caller to settle later), or releases the key after a retryable failure.
 */
final class LeasedRun {

  static final String MDC_KEY = "idem.key";

  private static final Logger log = LoggerFactory.getLogger(LeasedRun.class);
  private static final long COMPLETION_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final IdempotencyStore store;
  private final LeaseWatchdog watchdog;
  private final DuplicateWaiter waiter;
  private final BiConsumer<IdempotencyKey, ExecutionOutcome> report;

  LeasedRun(
      IdempotencyStore store,
      LeaseWatchdog watchdog,
      DuplicateWaiter waiter,
      BiConsumer<IdempotencyKey, ExecutionOutcome> report) {
    this.store = store;
    this.watchdog = watchdog;
    this.waiter = waiter;
    this.report = report;
  }

  /**
   * @param deferral receives a held outcome instead of the store, or null to store it at once
   */
  <T, E extends Exception> Executed<T> run(
      Lease lease,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config,
      Consumer<PendingOutcome> deferral)
      throws E {
    RunningLease running = new RunningLease(lease);
    LeaseWatchdog.Watch watch = startWatchdog(running, config);
    T value;
    try (MDC.MDCCloseable mdc = MDC.putCloseable(MDC_KEY, lease.key().toString())) {
      value = work.run(running);
    } catch (Exception | Error failure) {
      if (failure instanceof Exception e && config.isTerminal(e)) {
        Outcome outcome = Outcome.failure(codec.encodeFailure(e));
        if (deferral != null) {
          deferral.accept(new Held(running, watch, outcome, config));
        } else {
          stopWatch(watch);
          storeTerminalFailure(running, outcome, config);
        }
      } else {
        stopWatch(watch);
        release(running);
      }
      report.accept(lease.key(), ExecutionOutcome.EXECUTED);
      throw failure;
    }
    Outcome outcome;
    try {
      outcome = Outcome.success(codec.encode(value));
    } catch (RuntimeException e) {
      stopWatch(watch);
      release(running);
      throw e;
    }
    if (deferral != null) {
      deferral.accept(new Held(running, watch, outcome, config));
      report.accept(lease.key(), ExecutionOutcome.EXECUTED);
      return new Executed<>(value, false);
    }
    stopWatch(watch);
    if (!storeOutcome(running, outcome, config)) {
      report.accept(lease.key(), ExecutionOutcome.LEASE_LOST);
      throw new LeaseLostException(
          "the lease on " + lease.key() + " was taken over before the result could be stored");
    }
    report.accept(lease.key(), ExecutionOutcome.EXECUTED);
    return new Executed<>(value, false);
  }

  private void storeTerminalFailure(
      RunningLease running, Outcome outcome, IdempotencyConfig config) {
    try {
      if (!storeOutcome(running, outcome, config)) {
        log.warn("lease on {} was lost; terminal failure not stored", running.key());
      }
    } catch (OutcomeTooLargeException tooLarge) {
      log.warn("terminal failure of {} too large to store; key released", running.key());
    }
  }

  private static void stopWatch(LeaseWatchdog.Watch watch) {
    if (watch != null) {
      watch.close();
    }
  }

  private LeaseWatchdog.Watch startWatchdog(RunningLease running, IdempotencyConfig config) {
    return config.watchdog() ? watchdog.watch(store, running, config.lease()) : null;
  }

  /**
   * Stores the outcome, trying again while the store fails. Returns false only when the store says
   * the lease no longer matches; when the store keeps failing the failure is logged and true is
   * returned, because the work did run and its caller should get its answer. An outcome the store
   * refuses as too large releases the key and is thrown.
   */
  private boolean storeOutcome(RunningLease running, Outcome outcome, IdempotencyConfig config) {
    IdempotencyKey key = running.key();
    RuntimeException last = null;
    for (int attempt = 1; attempt <= config.completionAttempts(); attempt++) {
      try {
        boolean stored = store.complete(running.lease(), outcome, config.retention());
        waiter.signal(key);
        return stored;
      } catch (OutcomeTooLargeException e) {
        release(running);
        throw e;
      } catch (RuntimeException e) {
        last = e;
        if (attempt < config.completionAttempts()) {
          LockSupport.parkNanos(COMPLETION_BACKOFF_NANOS * attempt);
        }
      }
    }
    report.accept(key, ExecutionOutcome.STORE_ERROR);
    log.error(
        "the work for {} ran but its outcome could not be stored after {} attempts; a retry after"
            + " the lease ends will run it again",
        key,
        config.completionAttempts(),
        last);
    return true;
  }

  /** An outcome held back until the caller settles it; the watchdog keeps its lease meanwhile. */
  private final class Held implements PendingOutcome {
    private final RunningLease running;
    private final LeaseWatchdog.Watch watch;
    private final Outcome outcome;
    private final IdempotencyConfig config;
    private final AtomicBoolean settled = new AtomicBoolean();

    Held(
        RunningLease running,
        LeaseWatchdog.Watch watch,
        Outcome outcome,
        IdempotencyConfig config) {
      this.running = running;
      this.watch = watch;
      this.outcome = outcome;
      this.config = config;
    }

    @Override
    public IdempotencyKey key() {
      return running.key();
    }

    @Override
    public boolean complete() {
      settle();
      try {
        if (storeOutcome(running, outcome, config)) {
          return true;
        }
        report.accept(running.key(), ExecutionOutcome.LEASE_LOST);
        log.warn("lease on {} was lost before its held outcome was stored", running.key());
      } catch (OutcomeTooLargeException tooLarge) {
        log.warn("held outcome of {} too large to store; key released", running.key());
      }
      return false;
    }

    @Override
    public void release() {
      settle();
      LeasedRun.this.release(running);
    }

    private void settle() {
      if (!settled.compareAndSet(false, true)) {
        throw new IllegalStateException("the outcome of " + running.key() + " is already settled");
      }
      stopWatch(watch);
    }
  }

  private void release(RunningLease running) {
    try {
      store.release(running.lease());
    } catch (RuntimeException e) {
      log.warn("could not release {}; it frees itself when the lease ends", running.key(), e);
    } finally {
      waiter.signal(running.key());
    }
  }
}
