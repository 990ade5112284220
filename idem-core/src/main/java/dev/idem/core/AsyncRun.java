package dev.idem.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * What a claim let an asynchronous call do: answer at once (a replay), or start work that ends
 * later, owning the key or, when the store failed and the config fails open, unguarded.
 */
final class AsyncRun<T> {

  private static final Logger log = LoggerFactory.getLogger(AsyncRun.class);

  private final Executed<T> answer;
  private final LeasedRun.Owned<T> owned;
  private final ExecutionContext context;

  private AsyncRun(Executed<T> answer, LeasedRun.Owned<T> owned, ExecutionContext context) {
    this.answer = answer;
    this.owned = owned;
    this.context = context;
  }

  static <T> AsyncRun<T> answered(Executed<T> answer) {
    return new AsyncRun<>(answer, null, null);
  }

  static <T> AsyncRun<T> owned(LeasedRun.Owned<T> owned) {
    return new AsyncRun<>(null, owned, owned.context());
  }

  static <T> AsyncRun<T> unguarded(IdempotencyKey key) {
    return new AsyncRun<>(null, null, new UnguardedContext(key));
  }

  /**
   * Starts the work unless the claim answered, and settles its outcome on {@code storeCalls} once
   * it ends. Nothing here waits for the work.
   */
  CompletableFuture<Executed<T>> run(AsyncWork<T> work, Executor storeCalls) {
    if (answer != null) {
      return CompletableFuture.completedFuture(answer);
    }
    CompletionStage<T> stage;
    try (MDC.MDCCloseable mdc = MDC.putCloseable(LeasedRun.MDC_KEY, context.key().toString())) {
      stage = work.start(context);
      if (stage == null) {
        throw new NullPointerException("the work for " + context.key() + " returned no stage");
      }
    } catch (Exception | Error failure) {
      failed(failure);
      return CompletableFuture.failedFuture(failure);
    }
    CompletableFuture<Executed<T>> done = new CompletableFuture<>();
    Executor settling = task -> settle(task, storeCalls);
    if (stage instanceof CompletableFuture<T> future && future.isDone()) {
      // ended while it started, on this storeCalls thread: settled here, with no other hop
      future.whenComplete((value, failure) -> ended(value, failure, done, settling));
    } else {
      stage.whenComplete(
          (value, failure) -> settle(() -> ended(value, failure, done, settling), storeCalls));
    }
    return done;
  }

  // On a storeCalls thread. A store that settles without blocking lets the thread go while the
  // outcome is on the wire; its answer is taken up on a storeCalls thread again.
  private void ended(
      T value, Throwable failure, CompletableFuture<Executed<T>> done, Executor settling) {
    boolean later = owned != null && owned.settlesLater();
    try {
      if (failure != null) {
        Throwable cause = Settlement.unwrap(failure);
        if (later) {
          owned
              .failedLater(cause, settling)
              .whenComplete(
                  (ignored, settleFailure) ->
                      done.completeExceptionally(
                          settleFailure == null ? cause : Settlement.unwrap(settleFailure)));
          return;
        }
        failed(cause);
        done.completeExceptionally(cause);
        return;
      }
      if (later) {
        owned
            .returnedLater(value, settling)
            .whenComplete(
                (executed, settleFailure) -> {
                  if (settleFailure != null) {
                    done.completeExceptionally(Settlement.unwrap(settleFailure));
                  } else {
                    done.complete(executed);
                  }
                });
        return;
      }
      done.complete(owned == null ? new Executed<>(value, false) : owned.returned(value));
    } catch (RuntimeException | Error e) {
      done.completeExceptionally(e);
    }
  }

  private void failed(Throwable failure) {
    if (owned != null) {
      owned.failed(failure);
    }
  }

  /**
   * Settles on {@code storeCalls}, whose threads may block on the store. When it refuses the task
   * (its queue is full) the common pool settles it: a key left owned would be renewed for ever, and
   * the thread that ended the work may be an event loop, which must not block.
   */
  private static void settle(Runnable settling, Executor storeCalls) {
    try {
      storeCalls.execute(settling);
    } catch (RejectedExecutionException e) {
      log.warn("the store's executor refused to settle an outcome; the common pool settles it", e);
      ForkJoinPool.commonPool().execute(settling);
    }
  }
}
