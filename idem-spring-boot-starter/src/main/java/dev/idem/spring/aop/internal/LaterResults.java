package dev.idem.spring.aop.internal;

import dev.idem.core.AsyncWork;
import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotentCall;
import dev.idem.core.ResultCodec;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.ReactiveIdempotency;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * Runs an {@code @Idempotent} method whose result ends after it returns (a {@code
 * CompletableFuture}, a {@code Mono}, a {@code Flux}) through the engine's asynchronous call: the
 * method is called only once the key is claimed, on a store thread, and the outcome is settled when
 * its result ends. A caller that stops listening (a cancelled subscriber) does not stop the work.
 */
public final class LaterResults {

  private final Idempotency engine;
  private final Executor storeCalls;
  private final InFlightWork inFlight;
  private final int maxElements;

  /**
   * @param storeCalls makes the store's calls, which may block
   * @param maxElements the most elements of a {@code Flux} kept for its repeats
   */
  public LaterResults(
      Idempotency engine, Executor storeCalls, InFlightWork inFlight, int maxElements) {
    if (maxElements < 1) {
      throw new IllegalArgumentException(
          "idem.async.max-elements must be at least 1, not " + maxElements);
    }
    this.engine = engine;
    this.storeCalls = storeCalls;
    this.inFlight = inFlight;
    this.maxElements = maxElements;
  }

  /** The result, of {@code plan}'s shape, of calling {@code method} once for {@code key}. */
  public Object call(
      MethodPlan plan, IdempotencyKey key, Fingerprint fingerprint, Callable<Object> method) {
    return switch (plan.shape()) {
      case STAGE -> execute(plan, plan.codec(), key, fingerprint, ctx -> stage(method));
      case MONO -> ReactorResults.mono(this, plan, key, fingerprint, method);
      case FLUX -> ReactorResults.flux(this, plan, key, fingerprint, method);
      case NOW -> throw new IllegalArgumentException(plan.operation() + " returns its result now");
    };
  }

  /** A result of {@code plan}'s shape that fails with {@code failure} (a bad key) when used. */
  public Object failed(MethodPlan plan, RuntimeException failure) {
    return switch (plan.shape()) {
      case MONO, FLUX -> ReactorResults.failed(plan, failure);
      default -> CompletableFuture.failedFuture(failure);
    };
  }

  int maxElements() {
    return maxElements;
  }

  /** The engine's call of {@code key}, for a Reactor result's path. */
  IdempotentCall<String> call(IdempotencyKey key, Fingerprint fingerprint) {
    return engine.call(key, fingerprint);
  }

  /** The Reactor calls on the same engine and threads; only a Reactor result's path asks. */
  ReactiveIdempotency reactive() {
    return new ReactiveIdempotency(engine, storeCalls, inFlight);
  }

  CompletableFuture<@Nullable Object> execute(
      MethodPlan plan,
      ResultCodec<@Nullable Object> codec,
      IdempotencyKey key,
      Fingerprint fingerprint,
      AsyncWork<@Nullable Object> work) {
    return engine
        .call(key, fingerprint)
        .codec(codec)
        .config(plan.config())
        .runAsync(inFlight.trackAsync(work), storeCalls)
        .thenApply(Executed::value);
  }

  @SuppressWarnings("unchecked")
  private static CompletionStage<Object> stage(Callable<Object> method) throws Exception {
    return (CompletionStage<Object>) method.call();
  }
}
