package dev.idem.core;

import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/** What the engine tells the work while it runs under a lease. */
public interface ExecutionContext {

  /**
   * The context of the guarded work running on this thread: code the work calls without handing it
   * the context (a service method, an HTTP client) finds it here. Inside a step, the step's. Work
   * that ends later ({@link IdempotentCall#runAsync}) is found here only while its stage is being
   * started.
   */
  static Optional<ExecutionContext> current() {
    return Optional.ofNullable(EngineContext.current());
  }

  /**
   * Calls {@code body} as part of the guarded work that {@code context} belongs to: inside it,
   * {@link #current()} answers {@code context}, so steps made there are that work's. For an
   * integration whose work's body runs after the engine's call returned with the outcome held (a
   * message listener that claims first and settles after its body), while the lease is still held.
   *
   * @param context a context the engine handed to work
   * @throws IllegalArgumentException for a context the engine did not make
   */
  static <T extends @Nullable Object> T callWithin(ExecutionContext context, Callable<T> body)
      throws Exception {
    return EngineContext.within(context, body);
  }

  /** The key being executed. */
  IdempotencyKey key();

  /**
   * The fence of this execution's lease. It grows with every claim of the key, so the work can
   * guard its own writes with it ({@code UPDATE ... WHERE last_fence < :fence}) and a stale owner's
   * late write is refused.
   */
  long fence();

  /** True once the watchdog failed to renew the lease: another owner may now run the same key. */
  boolean isLeaseLost();

  /** Completes when the lease is lost; never completes if the work finishes with its lease. */
  CompletionStage<@Nullable Void> leaseLost();

  /**
   * Says that this work's answer is not to be kept: the caller gets what the work returns, nothing
   * is stored, and the key is freed once the work ends (or, when the caller holds the outcome, once
   * it settles it), so that a repeat runs the work again. For an answer that says the work had no
   * effect: a refusal of the request, a busy signal. It applies to a failure the work then throws
   * too. A call after the work ended changes nothing; work that runs unguarded (the store down, the
   * config failing open) stores nothing anyway.
   *
   * @throws IllegalStateException this context was not made by the engine (a test's own)
   */
  default void discardOutcome() {
    throw new IllegalStateException("only a context the engine made keeps an outcome, not " + this);
  }

  /**
   * Runs {@code work} as the step {@code name} of this work: at most once per key and name, however
   * often the work itself runs under the key (a retry after a failure, a takeover after a crash).
   * The step's result, or the failure the config classifies as terminal, is stored as soon as the
   * step ends, outside any transaction this work runs in, and every later run gets it back instead
   * of running the step again. A retryable failure stores nothing: the next run runs the step
   * again. The step has a lease and a fence of its own ({@code work}'s context), and may have steps
   * of its own. Blocks the calling thread while the store answers.
   *
   * @param input what the step depends on: a run that reaches the step with other input than the
   *     run that stored it fails with {@link StepInputChangedException}; {@link Fingerprint#NONE}
   *     checks nothing
   * @throws StepInputChangedException the step stored a result for other input
   * @throws LeaseLostException this work's lease was lost before the step began
   * @throws RequestInProgressException another run holds the step past this config's lease
   * @throws IdempotencyStoreException the store failed, and the config fails closed
   * @throws IllegalStateException this context was not made by the engine (a test's own)
   * @throws E what the step throws on the run that runs it
   * @throws ReplayedFailureException on a later run, the terminal failure it stored
   */
  default <T extends @Nullable Object, E extends Exception> T step(
      String name, Fingerprint input, ResultCodec<T> codec, Work<T, E> work) throws E {
    throw new IllegalStateException("steps run only in a context the engine made, not " + this);
  }

  /** As {@link #step(String, Fingerprint, ResultCodec, Work)}, checking no input. */
  default <T extends @Nullable Object, E extends Exception> T step(
      String name, ResultCodec<T> codec, Work<T, E> work) throws E {
    return step(name, Fingerprint.NONE, codec, work);
  }

  /** As {@link #step(String, Fingerprint, ResultCodec, Work)}, for text, checking no input. */
  default <E extends Exception> String step(String name, Work<String, E> work) throws E {
    return step(name, Fingerprint.NONE, ResultCodec.utf8(), work);
  }

  /**
   * The key to send a downstream service for the step {@code name}, in place of a key of one's own:
   * the same on every run of this work, so that the service deduplicates a call repeated by a rerun
   * (64 lowercase hex characters, derived from this work's key and request, which it does not
   * reveal; the digest of {@link #keyOfStep}).
   *
   * @throws IllegalArgumentException when {@code name} is no valid step name
   */
  default String stepKey(String name) {
    return keyOfStep(name).digest();
  }

  /**
   * The key under which the step {@code name} of this work keeps its result: derived from this
   * work's key and bound to its request ({@link IdempotencyKey#step(String, Fingerprint)}).
   *
   * @throws IllegalArgumentException when {@code name} is no valid step name
   */
  default IdempotencyKey keyOfStep(String name) {
    return key().step(name);
  }
}
