package dev.idem.core;

import dev.idem.core.internal.DuplicateWaiter;
import dev.idem.core.internal.LeaseWatchdog;
import dev.idem.core.internal.RunningLease;
import java.time.Duration;
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
 * it to the caller's transaction to settle), or releases the key after a retryable failure.
 *
 * <p>Just over 400 lines because it is the one home of the settlement rules, for the blocking call
 * and the asynchronous one ({@link Owned}) and for held outcomes ({@code Held}): storing with
 * retries, the unstored mark, the transaction's say and the release must not drift apart.
 */
final class LeasedRun {

  static final String MDC_KEY = "idem.key";

  private static final Logger log = LoggerFactory.getLogger(LeasedRun.class);
  private static final long COMPLETION_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final ResultCodec<Void> PLAIN = ResultCodec.none();

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
   * Runs the work and settles its outcome. When the caller's transaction decides (a {@code
   * deferral} is given, or the store writes in that transaction) every outcome is kept for it, a
   * thrown exception included: the work's writes commit with it. Otherwise a return value or a
   * terminal failure is stored and any other failure frees the key.
   *
   * @param deferral receives the outcome instead of the store, or null to settle it here
   */
  <T, E extends Exception> Executed<T> run(
      Lease lease,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config,
      Consumer<PendingOutcome> deferral)
      throws E {
    Owned<T> owned = start(lease, codec, config, deferral);
    T value;
    try (MDC.MDCCloseable mdc = MDC.putCloseable(MDC_KEY, lease.key().toString())) {
      value = work.run(owned.context());
    } catch (Exception | Error failure) {
      owned.failed(failure);
      throw failure;
    }
    return owned.returned(value);
  }

  /** Takes ownership of a claimed lease, watchdog on, for work whose end the caller reports. */
  <T> Owned<T> start(
      Lease lease,
      ResultCodec<T> codec,
      IdempotencyConfig config,
      Consumer<PendingOutcome> deferral) {
    RunningLease running = new RunningLease(lease);
    boolean joined = deferral == null && store.joinsCurrentTransaction();
    return new Owned<>(running, startWatchdog(running, config), codec, config, joined, deferral);
  }

  /** A claimed key whose work runs; told once how the work ended, it settles the outcome. */
  final class Owned<T> {
    private final RunningLease running;
    private final LeaseWatchdog.Watch watch;
    private final ResultCodec<T> codec;
    private final IdempotencyConfig config;
    private final boolean joined;
    private final Consumer<PendingOutcome> deferral;

    private Owned(
        RunningLease running,
        LeaseWatchdog.Watch watch,
        ResultCodec<T> codec,
        IdempotencyConfig config,
        boolean joined,
        Consumer<PendingOutcome> deferral) {
      this.running = running;
      this.watch = watch;
      this.codec = codec;
      this.config = config;
      this.joined = joined;
      this.deferral = deferral;
    }

    ExecutionContext context() {
      return running;
    }

    /** The work failed: the failure is stored, held or frees the key; the caller rethrows it. */
    void failed(Throwable failure) {
      settleFailure(running, watch, failure, codec, config, joined, deferral);
      report.accept(running.key(), ExecutionOutcome.EXECUTED);
    }

    /**
     * The work returned {@code value}: it is stored (or held), and handed back.
     *
     * @throws LeaseLostException another owner took the lease over before the value was stored
     */
    Executed<T> returned(T value) {
      Outcome outcome;
      Duration retention;
      try {
        retention = codec.retention(value, config.retention());
        // a value kept for no time is an answer not to store: the caller gets it, the key is freed
        outcome = kept(retention) ? encoded(value) : null;
      } catch (RuntimeException e) {
        if (deferral == null && !joined) {
          stopWatch(watch);
          release(running);
        } else {
          settleFailure(running, watch, e, codec, config, joined, deferral);
        }
        throw e;
      }
      if (outcome == null && deferral == null) {
        stopWatch(watch);
        release(running);
      } else if (deferral != null) {
        hold(outcome, retention);
      } else {
        stopWatch(watch);
        if (!storeOutcome(running, outcome, retention, config)) {
          report.accept(running.key(), ExecutionOutcome.LEASE_LOST);
          throw new LeaseLostException(
              "the lease on "
                  + running.key()
                  + " was taken over before the result could be stored");
        }
      }
      report.accept(running.key(), ExecutionOutcome.EXECUTED);
      return new Executed<>(value, false);
    }

    /** The value as stored; one the codec finds too large keeps the key with the unstored mark. */
    private Outcome encoded(T value) {
      try {
        return Outcome.success(codec.encode(value));
      } catch (OutcomeTooLargeException tooLarge) {
        log.warn(
            "the result of {} is not kept ({}); repeats get OutcomeNotReplayableException",
            running.key(),
            tooLarge.getMessage());
        return Outcome.unstored(tooLarge);
      }
    }

    private void hold(Outcome outcome, Duration retention) {
      try {
        deferral.accept(new Held(running, watch, outcome, retention, config));
      } catch (RuntimeException | Error e) {
        // a deferral that could not take the outcome must not leave the key renewed for ever
        stopWatch(watch);
        release(running);
        throw e;
      }
    }
  }

  /**
   * Settles a failure of the work. Nothing thrown here may leave the key held: a classifier, codec
   * or deferral that fails frees it, and what it threw is added to the work's failure.
   */
  private void settleFailure(
      RunningLease running,
      LeaseWatchdog.Watch watch,
      Throwable failure,
      ResultCodec<?> codec,
      IdempotencyConfig config,
      boolean joined,
      Consumer<PendingOutcome> deferral) {
    try {
      if (deferral != null) {
        deferral.accept(
            new Held(running, watch, failureOutcome(codec, failure), config.retention(), config));
        return;
      }
      stopWatch(watch);
      if (joined) {
        storeInTransaction(running, failureOutcome(codec, failure), config);
      } else if (isTerminal(config, failure)) {
        storeTerminalFailure(running, failureOutcome(codec, failure), config);
      } else {
        release(running);
      }
    } catch (RuntimeException | Error unexpected) {
      stopWatch(watch);
      release(running);
      failure.addSuppressed(unexpected);
    }
  }

  private static boolean kept(Duration retention) {
    return !retention.isNegative() && !retention.isZero();
  }

  private static boolean isTerminal(IdempotencyConfig config, Throwable failure) {
    if (!(failure instanceof Exception e)) {
      return false;
    }
    try {
      return config.isTerminal(e);
    } catch (RuntimeException classifierFailed) {
      log.warn("the terminal classifier failed on {}; treated as retryable", e, classifierFailed);
      return false;
    }
  }

  /** The failure as the codec stores it, or as the default codec does when the codec throws. */
  private static Outcome failureOutcome(ResultCodec<?> codec, Throwable failure) {
    try {
      return Outcome.failure(codec.encodeFailure(failure));
    } catch (RuntimeException codecFailed) {
      log.warn("the codec could not encode {}; stored by class and message", failure, codecFailed);
      return Outcome.failure(PLAIN.encodeFailure(failure));
    }
  }

  /**
   * Stores a failure in the caller's transaction, which decides its fate: committed with the work's
   * writes, or gone with them. One attempt, because a failed write has failed the transaction too
   * on most databases.
   */
  private void storeInTransaction(RunningLease running, Outcome outcome, IdempotencyConfig config) {
    try {
      if (!completeOrMark(running, outcome, config.retention())) {
        log.warn("lease on {} was lost; its failure not stored", running.key());
      }
    } catch (RuntimeException e) {
      log.warn(
          "the failure of {} could not be stored in the caller's transaction; if it commits, the"
              + " key stays in progress until its lease ends",
          running.key(),
          e);
    } finally {
      waiter.signal(running.key());
    }
  }

  private void storeTerminalFailure(
      RunningLease running, Outcome outcome, IdempotencyConfig config) {
    if (!storeOutcome(running, outcome, config.retention(), config)) {
      log.warn("lease on {} was lost; terminal failure not stored", running.key());
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
   * refuses as too large is replaced by {@link Outcome#unstored}: the key stays taken.
   */
  private boolean storeOutcome(
      RunningLease running, Outcome outcome, Duration retention, IdempotencyConfig config) {
    IdempotencyKey key = running.key();
    RuntimeException last = null;
    for (int attempt = 1; attempt <= config.completionAttempts(); attempt++) {
      try {
        boolean stored = completeOrMark(running, outcome, retention);
        waiter.signal(key);
        // a reply lost on the way back: the earlier attempt may have stored it
        return stored || (last != null && storedByUs(running, outcome));
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

  /** Completes with the outcome, or with the unstored mark when the store finds it too large. */
  private boolean completeOrMark(RunningLease running, Outcome outcome, Duration retention) {
    try {
      return store.complete(running.lease(), outcome, retention);
    } catch (OutcomeTooLargeException tooLarge) {
      log.warn(
          "the result of {} is not kept ({}); repeats get OutcomeNotReplayableException",
          running.key(),
          tooLarge.getMessage());
      return store.complete(running.lease(), Outcome.unstored(tooLarge), retention);
    }
  }

  private boolean storedByUs(RunningLease running, Outcome outcome) {
    try {
      return store
          .find(running.key())
          .filter(r -> r.state() == RecordState.COMPLETED)
          .filter(r -> r.fence() == running.lease().fence())
          .filter(r -> r.outcome().equals(outcome) || r.outcome().kind() == Outcome.Kind.UNSTORED)
          .isPresent();
    } catch (RuntimeException e) {
      log.warn("could not read back the outcome of {}", running.key(), e);
      return false;
    }
  }

  /**
   * An outcome held back until the caller settles it; the watchdog keeps its lease meanwhile. A
   * null outcome is an answer not to store: completing it frees the key.
   */
  private final class Held implements PendingOutcome {
    private final RunningLease running;
    private final LeaseWatchdog.Watch watch;
    private final Outcome outcome;
    private final Duration retention;
    private final IdempotencyConfig config;
    private final AtomicBoolean settled = new AtomicBoolean();

    Held(
        RunningLease running,
        LeaseWatchdog.Watch watch,
        Outcome outcome,
        Duration retention,
        IdempotencyConfig config) {
      this.running = running;
      this.watch = watch;
      this.outcome = outcome;
      this.retention = retention;
      this.config = config;
    }

    @Override
    public IdempotencyKey key() {
      return running.key();
    }

    @Override
    public boolean complete() {
      settle();
      if (outcome == null) {
        LeasedRun.this.release(running);
        return true;
      }
      if (storeOutcome(running, outcome, retention, config)) {
        return true;
      }
      report.accept(running.key(), ExecutionOutcome.LEASE_LOST);
      log.warn("lease on {} was lost before its held outcome was stored", running.key());
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
