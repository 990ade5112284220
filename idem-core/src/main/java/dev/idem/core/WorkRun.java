package dev.idem.core;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * What a claim let a call do: answer at once (a replay), or start the work, owning the key or, when
 * the store failed and the config fails open, unguarded; and settle the work's outcome when it
 * ends, now or later.
 */
final class WorkRun<T extends @Nullable Object> {

  private final @Nullable Executed<T> answer;
  private final Ownership.@Nullable Owned<T> owned;
  private final @Nullable ExecutionContext context;

  private WorkRun(
      @Nullable Executed<T> answer,
      Ownership.@Nullable Owned<T> owned,
      @Nullable ExecutionContext context) {
    this.answer = answer;
    this.owned = owned;
    this.context = context;
  }

  static <T extends @Nullable Object> WorkRun<T> answered(Executed<T> answer) {
    return new WorkRun<>(answer, null, null);
  }

  /** Work that owns its key. */
  static <T extends @Nullable Object> WorkRun<T> owned(Ownership.Owned<T> owned) {
    return new WorkRun<>(null, owned, owned.context());
  }

  /** Work run without a lease, since the store failed and the config fails open. */
  static <T extends @Nullable Object> WorkRun<T> unguarded(ExecutionContext context) {
    return new WorkRun<>(null, null, context);
  }

  /**
   * Starts the work unless the claim answered, and settles its outcome on {@code storeCalls} once
   * it ends. Nothing here waits for the work. Work that ended while it started (a blocking call's,
   * or a failure to start) is settled on the thread that started it, with no other hop.
   */
  CompletableFuture<Executed<T>> run(AsyncWork<T> work, Executor storeCalls) {
    if (answer != null) {
      return CompletableFuture.completedFuture(answer);
    }
    ExecutionContext context =
        Objects.requireNonNull(this.context, "a run that starts has a context");
    CompletionStage<T> stage;
    try (MDC.MDCCloseable mdc = MDC.putCloseable(Ownership.MDC_KEY, context.key().toString());
        EngineContext.Scope current = EngineContext.enter(context)) {
      stage = work.start(context);
      if (stage == null) {
        throw new NullPointerException("the work for " + context.key() + " returned no stage");
      }
    } catch (Exception | Error failure) {
      // what the work threw is its outcome as it is: a CompletionException of its own included
      CompletableFuture<Executed<T>> done = new CompletableFuture<>();
      failed(failure, done, task -> settle(task, storeCalls));
      return done;
    }
    CompletableFuture<Executed<T>> done = new CompletableFuture<>();
    Executor settling = task -> settle(task, storeCalls);
    if (stage instanceof CompletableFuture<T> future && future.isDone()) {
      stage.whenComplete((value, failure) -> ended(value, unwrapped(failure), done, settling));
    } else {
      stage.whenComplete(
          (value, failure) ->
              settle(() -> ended(value, unwrapped(failure), done, settling), storeCalls));
    }
    return done;
  }

  // On a storeCalls thread. A store that settles without blocking lets the thread go while the
  // outcome is on the wire; its answer is taken up on a storeCalls thread again.
  private void ended(
      T value, @Nullable Throwable cause, CompletableFuture<Executed<T>> done, Executor settling) {
    if (cause != null) {
      failed(cause, done, settling);
      return;
    }
    if (owned == null) {
      done.complete(new Executed<>(value, false));
      return;
    }
    try {
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
    } catch (RuntimeException | Error e) {
      done.completeExceptionally(e);
    }
  }

  private void failed(Throwable cause, CompletableFuture<Executed<T>> done, Executor settling) {
    if (owned == null) {
      done.completeExceptionally(cause);
      return;
    }
    try {
      // the work's failure goes on as it is (a CompletionException of its own too), unless
      // settling it failed with an Error
      owned
          .failedLater(cause, settling)
          .whenComplete(
              (ignored, settleFailure) ->
                  done.completeExceptionally(
                      settleFailure == null ? cause : Settlement.unwrap(settleFailure)));
    } catch (RuntimeException | Error e) {
      done.completeExceptionally(e);
    }
  }

  // what a stage failed with: a dependent stage wraps its cause
  private static @Nullable Throwable unwrapped(@Nullable Throwable failure) {
    return failure == null ? null : Settlement.unwrap(failure);
  }

  // a key left owned would be renewed for ever, and the thread that ended the work may be an
  // event loop, which must not block
  private static void settle(Runnable settling, Executor storeCalls) {
    Settlement.handOver(settling, storeCalls, "settle an outcome");
  }
}
