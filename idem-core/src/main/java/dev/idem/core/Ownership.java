package dev.idem.core;

import dev.idem.core.internal.DuplicateWaiter;
import dev.idem.core.internal.LeaseWatchdog;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ownership of a claimed key while its work runs: the watchdog keeps the lease, and the work's
 * outcome is then stored, handed to the caller's transaction, or the key released after a retryable
 * failure.
 *
 * <p>The one home of the settlement rules ({@link Owned}, and {@code Held} for outcomes a
 * transaction decides): what is stored, held or released, and the transaction's say. The store's
 * side (retries, the unstored mark, the release) is {@link Settlement}'s.
 */
final class Ownership {

  static final String MDC_KEY = "idem.key";

  private static final Logger log = LoggerFactory.getLogger(Ownership.class);
  private static final ResultCodec<@Nullable Void> PLAIN = ResultCodec.none();

  private final IdempotencyStore store;
  private final LeaseWatchdog watchdog;
  private final DuplicateWaiter waiter;
  private final BiConsumer<IdempotencyKey, ExecutionOutcome> report;
  private final Settlement settlement;

  Ownership(
      IdempotencyStore store,
      LeaseWatchdog watchdog,
      DuplicateWaiter waiter,
      BiConsumer<IdempotencyKey, ExecutionOutcome> report) {
    this.store = store;
    this.watchdog = watchdog;
    this.waiter = waiter;
    this.report = report;
    this.settlement = new Settlement(store, waiter, report);
  }

  /** Takes ownership of {@code running}'s lease, watchdog on, for work the caller reports. */
  <T extends @Nullable Object> Owned<T> start(
      EngineContext running, ResultCodec<T> codec, IdempotencyConfig config, Deferral deferral) {
    // a step's outcome is stored at once, whatever the transaction around it does
    boolean joined =
        !deferral.holds() && !running.key().isStep() && store.joinsCurrentTransaction();
    return new Owned<>(running, startWatchdog(running, config), codec, config, joined, deferral);
  }

  /** A claimed key whose work runs; told once how the work ended, it settles the outcome. */
  final class Owned<T extends @Nullable Object> {
    private final EngineContext running;
    private final LeaseWatchdog.@Nullable Watch watch;
    private final ResultCodec<T> codec;
    private final IdempotencyConfig config;
    private final boolean joined;
    private final Deferral deferral;

    private Owned(
        EngineContext running,
        LeaseWatchdog.@Nullable Watch watch,
        ResultCodec<T> codec,
        IdempotencyConfig config,
        boolean joined,
        Deferral deferral) {
      this.running = running;
      this.watch = watch;
      this.codec = codec;
      this.config = config;
      this.joined = joined;
      this.deferral = deferral;
    }

    EngineContext context() {
      return running;
    }

    /**
     * The work failed: the failure is stored, held or frees the key, and the stage ends once it is
     * settled, never failing but with an {@link Error}; the caller then fails with the work's
     * failure. What follows the store's answer runs on {@code after}.
     */
    CompletableFuture<@Nullable Void> failedLater(Throwable failure, Executor after) {
      return Settlement.then(
          settleFailure(failure, after),
          after,
          ignored -> {
            report.accept(running.key(), ExecutionOutcome.EXECUTED);
            return null;
          });
    }

    /**
     * The work returned {@code value}: it is stored (or held), and the stage ends with it, or fails
     * with {@link LeaseLostException} when another owner took the lease over before the value was
     * stored. What follows the store's answer (the next attempt, the report, the caller's
     * continuation) runs on {@code after}, not on the store client's thread.
     */
    CompletableFuture<Executed<T>> returnedLater(T value, Executor after) {
      @Nullable Outcome outcome;
      Duration retention;
      try {
        // an answer the work discarded, or that its codec keeps for no time, is not stored: the
        // caller gets it, and the key is freed
        retention =
            running.outcomeDiscarded() ? Duration.ZERO : codec.retention(value, config.retention());
        outcome = kept(retention) ? encoded(value) : null;
      } catch (RuntimeException e) {
        CompletableFuture<@Nullable Void> settled;
        if (!deferral.holds() && !joined) {
          stopWatch(watch);
          settled = settlement.release(running, after);
        } else {
          settled = settleFailure(e, after);
        }
        return Settlement.then(
            settled,
            after,
            ignored -> {
              throw e;
            });
      }
      CompletableFuture<Boolean> stored;
      if (deferral.holds()) {
        hold(deferral, outcome, retention, after);
        stored = CompletableFuture.completedFuture(true);
      } else if (outcome == null) {
        stopWatch(watch);
        stored = settlement.release(running, after).thenApply(ignored -> true);
      } else {
        stopWatch(watch);
        stored = settlement.storeOutcome(running, outcome, retention, config, after);
      }
      return Settlement.then(
          stored,
          after,
          kept -> {
            if (!kept) {
              report.accept(running.key(), ExecutionOutcome.LEASE_LOST);
              throw new LeaseLostException(
                  "the lease on "
                      + running.key()
                      + " was taken over before the result could be stored");
            }
            report.accept(running.key(), ExecutionOutcome.EXECUTED);
            return new Executed<>(value, false);
          });
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

    /**
     * Settles a failure of the work. Nothing thrown here may leave the key held: a classifier,
     * codec or deferral that fails frees it, and what it threw is added to the work's failure. The
     * stage fails only with an {@link Error} from the store's release.
     */
    private CompletableFuture<@Nullable Void> settleFailure(Throwable failure, Executor after) {
      try {
        if (deferral.holds()) {
          // a discarded failure is held as an answer not to store
          @Nullable Outcome held =
              running.outcomeDiscarded() ? null : failureOutcome(codec, failure);
          deferral.hold(new Held(running, watch, held, config.retention(), config));
          return CompletableFuture.completedFuture(null);
        }
        stopWatch(watch);
        if (running.outcomeDiscarded()) {
          return settlement.release(running, after);
        }
        if (joined) {
          storeInTransaction(running, failureOutcome(codec, failure), config.retention());
          return CompletableFuture.completedFuture(null);
        } else if (isTerminal(config, failure)) {
          CompletableFuture<Boolean> stored =
              settlement.storeOutcome(
                  running, failureOutcome(codec, failure), config.retention(), config, after);
          return Settlement.<Boolean, @Nullable Void>then(
                  stored,
                  after,
                  kept -> {
                    if (!kept) {
                      log.warn("lease on {} was lost; terminal failure not stored", running.key());
                    }
                    return null;
                  })
              .exceptionallyCompose(
                  // an Error on the way: the key is freed and what it was goes with the failure
                  unexpected -> {
                    failure.addSuppressed(Settlement.unwrap(unexpected));
                    return settlement.release(running, after);
                  });
        } else {
          return settlement.release(running, after);
        }
      } catch (RuntimeException | Error unexpected) {
        stopWatch(watch);
        failure.addSuppressed(unexpected);
        return settlement.release(running, after);
      }
    }

    private void hold(
        Deferral deferral, @Nullable Outcome outcome, Duration retention, Executor after) {
      try {
        deferral.hold(new Held(running, watch, outcome, retention, config));
      } catch (RuntimeException | Error e) {
        // a deferral that could not take the outcome must not leave the key renewed for ever
        stopWatch(watch);
        settlement.release(running, after);
        throw e;
      }
    }
  }

  private static boolean kept(Duration retention) {
    return !retention.isNegative() && !retention.isZero();
  }

  static boolean isTerminal(IdempotencyConfig config, Throwable failure) {
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
  private void storeInTransaction(EngineContext running, Outcome outcome, Duration retention) {
    try {
      CallerRuns here = new CallerRuns();
      if (!here.join(settlement.completeOrMark(running, outcome, retention, here))) {
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

  private static void stopWatch(LeaseWatchdog.@Nullable Watch watch) {
    if (watch != null) {
      watch.close();
    }
  }

  private LeaseWatchdog.@Nullable Watch startWatchdog(EngineContext run, IdempotencyConfig config) {
    return config.watchdog()
        ? watchdog.watch(run.renewal(store, config.lease()), config.lease())
        : null;
  }

  /**
   * An outcome held back until the caller settles it; the watchdog keeps its lease meanwhile. A
   * null outcome is an answer not to store: completing it frees the key.
   */
  final class Held implements PendingOutcome {
    private final EngineContext running;
    private final LeaseWatchdog.@Nullable Watch watch;
    private final @Nullable Outcome outcome;
    private final Duration retention;
    private final IdempotencyConfig config;
    private final AtomicBoolean settled = new AtomicBoolean();

    Held(
        EngineContext running,
        LeaseWatchdog.@Nullable Watch watch,
        @Nullable Outcome outcome,
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
      CallerRuns here = new CallerRuns();
      return here.join(completing(here));
    }

    /** {@link #complete()} as a stage whose store calls and decisions run on {@code after}. */
    CompletableFuture<Boolean> completing(Executor after) {
      settle();
      return finish(after, null);
    }

    /** The store this outcome goes to. */
    IdempotencyStore store() {
      return store;
    }

    /** True unless this outcome is an answer not to store, whose key is freed. */
    boolean hasOutcome() {
      return outcome != null;
    }

    /**
     * Settles this outcome for a batch: the completion to send with the others, or null when there
     * is nothing to store ({@link #finish} then frees the key).
     */
    IdempotencyStore.@Nullable Completion settleInBatch() {
      settle();
      return outcome == null
          ? null
          : new IdempotencyStore.Completion(running.lease(), outcome, retention);
    }

    /** What follows settling: the outcome stored, its first attempt {@code sent} when not null. */
    CompletableFuture<Boolean> finish(Executor after, @Nullable CompletableFuture<Boolean> sent) {
      if (outcome == null) {
        return settlement.release(running, after).thenApply(released -> true);
      }
      return Settlement.then(
          settlement.storeOutcome(running, outcome, retention, config, after, sent),
          after,
          stored -> {
            if (!stored) {
              report.accept(running.key(), ExecutionOutcome.LEASE_LOST);
              log.warn("lease on {} was lost before its held outcome was stored", key());
            }
            return stored;
          });
    }

    @Override
    public void release() {
      CallerRuns here = new CallerRuns();
      here.join(releasing(here));
    }

    /** {@link #release()} as a stage whose store call and decisions run on {@code after}. */
    CompletableFuture<@Nullable Void> releasing(Executor after) {
      settle();
      return settlement.release(running, after);
    }

    @Override
    public void keep() {
      settle();
      log.warn("outcome of {} unknown; the key stays in progress until its lease ends", key());
    }

    private void settle() {
      if (!settled.compareAndSet(false, true)) {
        throw new IllegalStateException("the outcome of " + running.key() + " is already settled");
      }
      stopWatch(watch);
    }
  }
}
