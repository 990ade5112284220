package dev.idem.core;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One operation run once per key: its name, the codec of its result and its config, held together
 * as a retry policy is in Resilience4j's {@code Retry.of(name, config)}. Keys live in the scope
 * named after the operation ({@code payments}), or after the operation and a caller ({@code
 * payments|alice}, see {@link #forCaller}); the name is also the operation tag of the meters. Made
 * by {@link Idempotency#operation}; immutable and thread-safe, so keep one in a field.
 *
 * <pre>{@code
 * IdempotentOperation<String> payments = idempotency.operation("payments");
 * String receipt = payments.execute(keyFromClient, requestBody, ctx -> gateway.charge(order));
 * }</pre>
 *
 * @param <T> the result, kept by the codec and replayed to every repeat
 */
public final class IdempotentOperation<T extends @Nullable Object> {

  private final Idempotency idempotency;
  private final String name;
  private final String scope;
  private final ResultCodec<T> codec;
  private final IdempotencyConfig config;

  IdempotentOperation(
      Idempotency idempotency,
      String name,
      String scope,
      ResultCodec<T> codec,
      IdempotencyConfig config) {
    this.idempotency = idempotency;
    this.name = name;
    this.scope = scope;
    this.codec = Objects.requireNonNull(codec, "codec");
    this.config = Objects.requireNonNull(config, "config");
  }

  static <T extends @Nullable Object> IdempotentOperation<T> of(
      Idempotency idempotency, String name, ResultCodec<T> codec, IdempotencyConfig config) {
    checkName(name);
    return new IdempotentOperation<>(idempotency, name, name, codec, config);
  }

  /** The operation's name. */
  public String name() {
    return name;
  }

  /** The scope its keys live in: the name, or {@code name|caller}. */
  public String scope() {
    return scope;
  }

  /** The codec of its result. */
  public ResultCodec<T> codec() {
    return codec;
  }

  /** Its config. */
  public IdempotencyConfig config() {
    return config;
  }

  /**
   * The same operation on behalf of {@code caller} (a user or tenant id): its keys live in the
   * scope {@code name|caller}, so one caller's key never meets another's, and a {@linkplain
   * IdempotencyConfig#scopeCap() cap} counts each caller's records apart.
   */
  public IdempotentOperation<T> forCaller(String caller) {
    Objects.requireNonNull(caller, "caller");
    String callerScope = IdempotencyKey.scope(name, caller);
    IdempotencyKey.of(callerScope, "check");
    return new IdempotentOperation<>(idempotency, name, callerScope, codec, config);
  }

  /** The same operation with {@code config}. */
  public IdempotentOperation<T> with(IdempotencyConfig config) {
    return new IdempotentOperation<>(idempotency, name, scope, codec, config);
  }

  /** The key {@code value} in this operation's scope. */
  public IdempotencyKey key(String value) {
    return IdempotencyKey.of(scope, value);
  }

  /**
   * Runs {@code work} once for {@code key} and answers its result, now and on every repeat. A
   * repeat whose {@code request} differs (any text that stands for the request, such as its body)
   * gets {@link KeyReuseException} instead; the work does not run.
   *
   * @throws InvalidKeyException if {@code key} is not a valid key value
   * @throws RequestInProgressException if a call with the key is still running (and the config does
   *     not wait, or waited past its limit)
   * @throws E whatever the work throws
   * @see IdempotentCall#runWithStatus
   */
  public <E extends Exception> T execute(String key, String request, Work<T, E> work) throws E {
    return executeWithStatus(key, Fingerprint.of(name, request), work).value();
  }

  /** As {@link #execute(String, String, Work)}, without comparing the requests of repeats. */
  public <E extends Exception> T execute(String key, Work<T, E> work) throws E {
    return executeWithStatus(key, Fingerprint.NONE, work).value();
  }

  /**
   * As {@link #execute(String, String, Work)}, with the fingerprint given, and telling whether the
   * result was replayed.
   */
  public <E extends Exception> Executed<T> executeWithStatus(
      String key, Fingerprint fingerprint, Work<T, E> work) throws E {
    return call(key, fingerprint).runWithStatus(work);
  }

  /**
   * The call of {@code key} with {@code fingerprint} in this operation's scope, with its codec and
   * config: what {@link #executeWithStatus} runs, for a caller that runs it otherwise ({@link
   * IdempotentCall#runAsync}, or with a deferral).
   *
   * @throws InvalidKeyException if {@code key} is not a valid key value
   */
  public IdempotentCall<T> call(String key, Fingerprint fingerprint) {
    return idempotency.call(key(key), fingerprint).codec(codec).config(config);
  }

  private static void checkName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank() || name.indexOf('|') >= 0) {
      throw new IllegalArgumentException(
          "an operation's name is not blank and holds no '|' (which parts it from the caller),"
              + " was '"
              + name
              + "'");
    }
    IdempotencyKey.of(name, "check");
  }

  @Override
  public String toString() {
    return "operation " + scope;
  }
}
