package dev.idem.core;

import dev.idem.core.store.ClaimRequest;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * One guarded call: the key and the request's fingerprint, what the call needs beyond the engine's
 * defaults, then the work it runs once for the key. Made by {@link Idempotency#call} for a key and
 * by {@link TokenService#call} for an issued token.
 *
 * <pre>{@code
 * String receipt = idempotency.call(key, Fingerprint.ofJson("POST /payments", body))
 *     .run(ctx -> gateway.charge(order, ctx.fence()));
 * Executed<Receipt> first = idempotency.call(key, fingerprint)
 *     .codec(receipts)
 *     .config(payments)
 *     .runWithStatus(ctx -> gateway.charge(order, ctx.fence()));
 * }</pre>
 *
 * <p>A normal return is stored and replayed; an exception that the config classifies as terminal is
 * stored and replayed too; any other exception frees the key so that a retry runs the work again,
 * and reaches the caller unchanged. When the store writes in the caller's transaction ({@link
 * dev.idem.core.store.IdempotencyStore#joinsCurrentTransaction()}) that transaction decides
 * instead: every outcome, a thrown exception included, is stored in it, unless the work discarded
 * it ({@link ExecutionContext#discardOutcome()}), which frees the key in any case. A duplicate that
 * arrives while the first runs is refused or waits, per {@link
 * IdempotencyConfig#inProgressPolicy()}. When the store fails at claim the call fails closed with
 * {@link IdempotencyStoreException} unless the config says fail open.
 *
 * <p>Immutable: {@link #codec}, {@link #config} and {@link #deferTo} each return another call, and
 * a call may be run again (the same request sent again gets the first answer).
 *
 * @param <T> the result, kept by the codec and replayed to every repeat
 */
public final class IdempotentCall<T extends @Nullable Object> {

  private final Idempotency engine;
  private final IdempotencyKey key;
  private final Fingerprint fingerprint;
  private final @Nullable TokenService token;
  private final ResultCodec<T> codec;
  private final IdempotencyConfig config;
  private final Deferral deferral;

  IdempotentCall(
      Idempotency engine,
      IdempotencyKey key,
      Fingerprint fingerprint,
      @Nullable TokenService token,
      ResultCodec<T> codec,
      IdempotencyConfig config,
      Deferral deferral) {
    this.engine = engine;
    this.key = Objects.requireNonNull(key, "key");
    this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
    this.token = token;
    this.codec = Objects.requireNonNull(codec, "codec");
    this.config = Objects.requireNonNull(config, "config");
    this.deferral = Objects.requireNonNull(deferral, "deferral");
  }

  /** This call with its result kept by {@code codec} (UTF-8 text unless given). */
  public <U extends @Nullable Object> IdempotentCall<U> codec(ResultCodec<U> codec) {
    return new IdempotentCall<>(engine, key, fingerprint, token, codec, config, deferral);
  }

  /** This call under {@code config} instead of the engine's defaults. */
  public IdempotentCall<T> config(IdempotencyConfig config) {
    return new IdempotentCall<>(engine, key, fingerprint, token, codec, config, deferral);
  }

  /**
   * This call with the outcome of work that ran handed to {@code deferral} instead of the store,
   * for the caller to complete or release later (when the transaction around the call commits or
   * rolls back). {@link Deferral#NONE}, the default, stores it as the work ends.
   */
  public IdempotentCall<T> deferTo(Deferral deferral) {
    return new IdempotentCall<>(engine, key, fingerprint, token, codec, config, deferral);
  }

  /**
   * Runs {@code work} once for the key, on this thread, and answers its value or the stored one.
   *
   * @throws RequestInProgressException a duplicate in flight (REJECT, or WAIT past its limit)
   * @throws KeyReuseException the key was used with another fingerprint
   * @throws UnknownTokenException a token that was never issued, or expired
   * @throws TokenAlreadyUsedException a used token, where repeats are refused
   * @throws IdempotencyStoreException the store failed at claim and the config fails closed
   * @throws LeaseLostException the work ran but another owner took its lease over
   * @throws E whatever the work throws
   */
  public <E extends Exception> T run(Work<T, E> work) throws E {
    return runWithStatus(work).value();
  }

  /**
   * As {@link #run}, and tells whether the value was replayed. The claim, the work and the
   * settlement run on the calling thread, so they see the caller's transaction and thread context;
   * an interrupt while a duplicate waits refuses it as in progress, the interrupt flag kept.
   */
  public <E extends Exception> Executed<T> runWithStatus(Work<T, E> work) throws E {
    return engine.run(this, work, null);
  }

  /**
   * As {@link #runWithStatus}, for work that ends after it returns. No thread waits for the work:
   * the claim runs on {@code storeCalls}, and so does the store call that settles the outcome once
   * the work's stage ends. A duplicate under WAIT holds no thread while it waits: each claim it
   * makes is a task of its own on {@code storeCalls}. Cancelling the returned future does not stop
   * the work, whose outcome is still stored for the retry. Listeners are told of the call on a
   * {@code storeCalls} thread. Its outcome is settled when the stage ends, or handed then to the
   * call's deferral ({@link #deferTo}) on the thread that ended the stage, which only a deferral
   * that {@linkplain Deferral#holdsFromAnyThread() holds from any thread} can take.
   *
   * @param storeCalls runs the store's calls, which may block; never an event loop's thread. Its
   *     {@code execute} hands the task over and returns: it neither runs the task on the calling
   *     thread nor waits for it, since that thread may be the store client's, which must go on
   *     reading answers
   * @throws IllegalStateException this call's deferral is bound to the calling thread (its
   *     transaction), which work that ends later cannot reach; nothing is claimed
   * @return completes with the value, or exceptionally with what the work or the engine threw (as
   *     {@link #run} documents), wrapped in a {@link java.util.concurrent.CompletionException} when
   *     the claim failed
   */
  public CompletableFuture<Executed<T>> runAsync(AsyncWork<T> work, Executor storeCalls) {
    return engine.runAsync(this, work, storeCalls);
  }

  IdempotencyKey key() {
    return key;
  }

  Fingerprint fingerprint() {
    return fingerprint;
  }

  ResultCodec<T> codec() {
    return codec;
  }

  IdempotencyConfig config() {
    return config;
  }

  Deferral deferral() {
    return deferral;
  }

  /** False for a token whose repeats are refused ({@link TokenAlreadyUsedException}). */
  boolean replaysUsed() {
    return token == null || token.replaysUsed();
  }

  /** What the store is asked: a token's use requires it issued, and counted when it was issued. */
  ClaimRequest request() {
    return token == null
        ? new ClaimRequest(key, fingerprint, config.lease(), false, config.scopeCap())
        : new ClaimRequest(key, fingerprint, config.lease(), true, token.scopeCap());
  }

  @Override
  public String toString() {
    return "the call of " + key;
  }
}
