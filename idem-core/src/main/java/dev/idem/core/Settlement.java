package dev.idem.core;

import dev.idem.core.internal.DuplicateWaiter;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's side of settling a run: storing an outcome with retries and the unstored mark, and
 * freeing a key, each through the store's stages. A blocking store ends them on the calling thread;
 * one that answers later ends them on its client's thread, so that what follows an answer there (a
 * next attempt, a log line, a read-back, the caller's continuation) is handed to the {@code after}
 * executor the caller gives (a blocking caller's {@link CallerRuns}, or the store threads), and
 * only waking local waiters runs where the answer came.
 */
final class Settlement {

  private static final Logger log = LoggerFactory.getLogger(Settlement.class);
  private static final long COMPLETION_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final IdempotencyStore store;
  private final DuplicateWaiter waiter;
  private final BiConsumer<IdempotencyKey, ExecutionOutcome> report;

  Settlement(
      IdempotencyStore store,
      DuplicateWaiter waiter,
      BiConsumer<IdempotencyKey, ExecutionOutcome> report) {
    this.store = store;
    this.waiter = waiter;
    this.report = report;
  }

  /**
   * Stores the outcome, trying again while the store fails. Ends with false only when the store
   * says the lease no longer matches; when the store keeps failing the failure is logged and it
   * ends with true, because the work did run and its caller should get its answer. An outcome the
   * store refuses as too large is replaced by {@link Outcome#unstored}: the key stays taken. What
   * follows an attempt that failed (the backoff, the next attempt, the read-back) runs on {@code
   * after}, never on the thread that ended the store's stage, which may be its client's I/O thread.
   * The stage never fails.
   */
  CompletableFuture<Boolean> storeOutcome(
      EngineContext running,
      Outcome outcome,
      Duration retention,
      IdempotencyConfig config,
      Executor after) {
    return storeOutcome(running, outcome, retention, config, after, null);
  }

  /**
   * As {@link #storeOutcome(EngineContext, Outcome, Duration, IdempotencyConfig, Executor)}, whose
   * first attempt is {@code sent}, the store's answer to a completion sent ahead with others
   * ({@link IdempotencyStore#completeAll}), when it is not null.
   */
  CompletableFuture<Boolean> storeOutcome(
      EngineContext running,
      Outcome outcome,
      Duration retention,
      IdempotencyConfig config,
      Executor after,
      @Nullable CompletableFuture<Boolean> sent) {
    Storing storing = new Storing(running, outcome, retention, config, after, sent);
    storing.attempt(1, null);
    return storing.stored;
  }

  /** One outcome on its way to the store, attempt after attempt. */
  private final class Storing {
    private final EngineContext running;
    private final Outcome outcome;
    private final Duration retention;
    private final IdempotencyConfig config;
    private final Executor after;
    private final CompletableFuture<Boolean> stored = new CompletableFuture<>();
    private @Nullable CompletableFuture<Boolean> sent;

    Storing(
        EngineContext running,
        Outcome outcome,
        Duration retention,
        IdempotencyConfig config,
        Executor after,
        @Nullable CompletableFuture<Boolean> sent) {
      this.running = running;
      this.outcome = outcome;
      this.retention = retention;
      this.config = config;
      this.after = after;
      this.sent = sent;
    }

    void attempt(int attempt, @Nullable RuntimeException last) {
      IdempotencyKey key = running.key();
      CompletableFuture<Boolean> first = sent;
      sent = null;
      completeOrMark(running, outcome, retention, after, first)
          .whenComplete(
              (done, failure) -> {
                if (failure == null) {
                  waiter.signal(key);
                  if (done || last == null) {
                    stored.complete(done);
                  } else {
                    // a reply lost on the way back: the earlier attempt may have stored it
                    onThread(after, stored, () -> stored.complete(storedByUs(running, outcome)));
                  }
                  return;
                }
                Throwable cause = unwrap(failure);
                if (cause instanceof Error) {
                  stored.completeExceptionally(cause);
                  return;
                }
                RuntimeException e = runtime(cause);
                onThread(
                    after,
                    stored,
                    () -> {
                      if (attempt < config.completionAttempts()) {
                        retry(attempt + 1, e);
                        return;
                      }
                      report.accept(key, ExecutionOutcome.STORE_ERROR);
                      log.error(
                          "the work for {} ran but its outcome could not be stored after {}"
                              + " attempts; its answer is given, and a retry after the lease ends"
                              + " runs it again unless an attempt reached the store after all",
                          key,
                          config.completionAttempts(),
                          e);
                      stored.complete(true);
                    });
              });
    }

    // The next attempt after a backoff, holding no thread meanwhile (scheduled from a thread of
    // after, never an I/O thread).
    private void retry(int attempt, RuntimeException last) {
      long backoff = COMPLETION_BACKOFF_NANOS * (attempt - 1);
      onThread(
          CompletableFuture.delayedExecutor(backoff, TimeUnit.NANOSECONDS, after),
          stored,
          () -> attempt(attempt, last));
    }
  }

  /** Completes with the outcome, or with the unstored mark when the store finds it too large. */
  CompletableFuture<Boolean> completeOrMark(
      EngineContext running, Outcome outcome, Duration retention, Executor after) {
    return completeOrMark(running, outcome, retention, after, null);
  }

  // ... whose completion was sent ahead when sent is not null
  private CompletableFuture<Boolean> completeOrMark(
      EngineContext running,
      Outcome outcome,
      Duration retention,
      Executor after,
      @Nullable CompletableFuture<Boolean> sent) {
    CompletableFuture<Boolean> marked = new CompletableFuture<>();
    (sent != null ? sent : complete(running, outcome, retention, after))
        .whenComplete(
            (done, failure) -> {
              if (failure == null) {
                marked.complete(done);
              } else if (unwrap(failure) instanceof OutcomeTooLargeException tooLarge) {
                onThread(
                    after,
                    marked,
                    () -> {
                      log.warn(
                          "the result of {} is not kept ({}); repeats get"
                              + " OutcomeNotReplayableException",
                          running.key(),
                          tooLarge.getMessage());
                      complete(running, Outcome.unstored(tooLarge), retention, after)
                          .whenComplete(
                              (again, failed) -> {
                                if (failed == null) {
                                  marked.complete(again);
                                } else {
                                  marked.completeExceptionally(unwrap(failed));
                                }
                              });
                    });
              } else {
                marked.completeExceptionally(unwrap(failure));
              }
            });
    return marked;
  }

  private CompletableFuture<Boolean> complete(
      EngineContext running, Outcome outcome, Duration retention, Executor after) {
    try {
      return store.complete(running.lease(), outcome, retention);
    } catch (RuntimeException | Error e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private boolean storedByUs(EngineContext running, Outcome outcome) {
    try {
      return store
          .find(running.key())
          .filter(r -> r.state() == RecordState.COMPLETED)
          .filter(r -> r.fence() == running.lease().fence())
          .filter(r -> outcome.equals(r.outcome()) || unstored(r.outcome()))
          .isPresent();
    } catch (RuntimeException e) {
      log.warn("could not read back the outcome of {}", running.key(), e);
      return false;
    }
  }

  private static boolean unstored(@Nullable Outcome stored) {
    return stored != null && stored.kind() == Outcome.Kind.UNSTORED;
  }

  /**
   * Frees the key; a release that fails is logged, since the key then frees itself when the lease
   * ends. The stage never fails; the log line is written on {@code after}.
   */
  CompletableFuture<@Nullable Void> release(EngineContext running, Executor after) {
    CompletableFuture<Boolean> sent;
    try {
      sent = store.release(running.lease());
    } catch (RuntimeException | Error e) {
      sent = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<@Nullable Void> released = new CompletableFuture<>();
    sent.whenComplete(
        (done, failure) -> {
          waiter.signal(running.key());
          Throwable cause = failure == null ? null : unwrap(failure);
          if (cause == null) {
            released.complete(null);
          } else if (cause instanceof Error) {
            released.completeExceptionally(cause);
          } else {
            onThread(
                after,
                released,
                () -> {
                  log.warn(
                      "could not release {}; it frees itself when the lease ends",
                      running.key(),
                      cause);
                  released.complete(null);
                });
          }
        });
    return released;
  }

  /**
   * Runs {@code task} on {@code storeCalls}, whose threads may block on the store; when it refuses
   * the task (its queue is full, or its blocking caller has gone) the common pool runs it, since
   * what was sent to the store must be taken up.
   *
   * @param what what the task does, for the log line
   */
  static void handOver(Runnable task, Executor storeCalls, String what) {
    try {
      storeCalls.execute(task);
    } catch (RejectedExecutionException refused) {
      log.warn("the store's executor refused to {}; the common pool does it", what, refused);
      ForkJoinPool.commonPool().execute(task);
    }
  }

  /**
   * {@code next} applied to {@code stage}'s value: where it ended when it has already, else on
   * {@code after}.
   */
  static <V extends @Nullable Object, R extends @Nullable Object> CompletableFuture<R> then(
      CompletableFuture<V> stage, Executor after, Function<V, R> next) {
    return stage.isDone() ? stage.thenApply(next) : stage.thenApplyAsync(next, after);
  }

  /** Runs {@code task} on {@code after}; what it throws, or a refusal, fails {@code stage}. */
  private static void onThread(Executor after, CompletableFuture<?> stage, Runnable task) {
    try {
      after.execute(
          () -> {
            try {
              task.run();
            } catch (RuntimeException | Error e) {
              stage.completeExceptionally(e);
            }
          });
    } catch (RuntimeException | Error e) {
      stage.completeExceptionally(e);
    }
  }

  /** What a stage failed with: the cause a dependent stage wraps. */
  static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }

  /**
   * What a store's stage failed with, unwrapped: the store's own exception; an {@link Error} is
   * thrown.
   */
  static RuntimeException runtime(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof RuntimeException e) {
      return e;
    }
    if (cause instanceof Error e) {
      throw e;
    }
    return new IdempotencyStoreException("idempotency store failed", cause);
  }
}
