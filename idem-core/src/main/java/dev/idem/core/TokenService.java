package dev.idem.core;

import dev.idem.core.internal.IssueBudget;
import dev.idem.core.store.ClaimRequest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Server-issued one-shot tokens (the article's section 2), on the same store and engine as keys.
 *
 * <p>{@link #issue} creates an ISSUED record under a random 128-bit token. {@link #execute} runs
 * work only for a token that was issued and has not expired: a forged, expired or unknown token
 * gets {@link UnknownTokenException}. A used token replays the first result, or is refused with
 * {@link TokenAlreadyUsedException} when built with {@code replayUsed = false}. A retryable failure
 * puts the token back to ISSUED, so the client can retry with it.
 *
 * <p>The article's own token code refuses every real token and accepts any forged one (it issues
 * with {@code SET} and then consumes with {@code SETNX} on the same key); here the claim itself
 * requires the ISSUED record.
 */
public final class TokenService {

  /** The operation of issued tokens: a caller's tokens live in {@link #scopeFor(String)}. */
  public static final String OPERATION = "token";

  /** How long an issued token stays usable: 1 h, as in the article. */
  public static final Duration DEFAULT_TTL = Duration.ofHours(1);

  private static final Pattern TOKEN_SHAPE = Pattern.compile("[A-Za-z0-9_-]{22}");
  private static final int ISSUE_ATTEMPTS = 3;

  private final Idempotency idempotency;
  private final Duration ttl;
  private final boolean replayUsed;
  private final int scopeCap;
  private final IssueBudget budget;
  private final int maxIssuedPerSecond;
  private final SecureRandom random = new SecureRandom();

  /** Tokens live for {@link #DEFAULT_TTL}; used tokens replay. */
  public TokenService(Idempotency idempotency) {
    this(idempotency, DEFAULT_TTL, true);
  }

  /**
   * @param ttl how long an issued token stays usable
   * @param replayUsed true to replay the first result to a used token, false to refuse it
   */
  public TokenService(Idempotency idempotency, Duration ttl, boolean replayUsed) {
    this(idempotency, ttl, replayUsed, ClaimRequest.NO_CAP);
  }

  /**
   * @param ttl how long an issued token stays usable
   * @param replayUsed true to replay the first result to a used token, false to refuse it
   * @param scopeCap the most live tokens and records one scope may hold: past it {@link #issue}
   *     fails with {@link StoreFullException}, so a caller asking for tokens in a loop cannot fill
   *     the store for everyone; {@link ClaimRequest#NO_CAP} for none
   */
  public TokenService(Idempotency idempotency, Duration ttl, boolean replayUsed, int scopeCap) {
    this(idempotency, ttl, replayUsed, scopeCap, DEFAULT_MAX_ISSUED_PER_SECOND);
  }

  /** The default bound on tokens this process issues in a second, across all callers: 1 000. */
  public static final int DEFAULT_MAX_ISSUED_PER_SECOND = 1_000;

  /**
   * @param ttl how long an issued token stays usable
   * @param replayUsed true to replay the first result to a used token, false to refuse it
   * @param scopeCap the most live tokens one scope (one caller) may hold, or {@link
   *     ClaimRequest#NO_CAP}
   * @param maxIssuedPerSecond the most tokens this process issues in a second across all callers
   *     (and at once): past it {@link #issue} fails with {@link StoreFullException}, so that many
   *     accounts together cannot mint without bound either; at least 1
   */
  public TokenService(
      Idempotency idempotency,
      Duration ttl,
      boolean replayUsed,
      int scopeCap,
      int maxIssuedPerSecond) {
    this.budget = new IssueBudget(maxIssuedPerSecond);
    this.maxIssuedPerSecond = maxIssuedPerSecond;
    if (scopeCap < 1) {
      throw new IllegalArgumentException("scopeCap must be at least 1, was " + scopeCap);
    }
    this.scopeCap = scopeCap;
    this.idempotency = Objects.requireNonNull(idempotency, "idempotency");
    if (ttl == null || ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("token ttl must be positive, was " + ttl);
    }
    this.ttl = ttl;
    this.replayUsed = replayUsed;
  }

  /** The scope of {@code caller}'s tokens, {@code token|<caller>}. */
  public static String scopeFor(String caller) {
    return IdempotencyKey.scope(OPERATION, caller);
  }

  /**
   * Issues a new token for {@code scope} (the operation and the caller, as for keys).
   *
   * @return 22 URL-safe characters carrying 128 random bits
   * @throws StoreFullException the scope holds as many live records as its cap allows, or this
   *     process issued as many tokens this second as its bound allows
   */
  public String issue(String scope) {
    if (!budget.take()) {
      throw new StoreFullException(
          "token issuance is over its bound of "
              + maxIssuedPerSecond
              + " a second across all callers; try again later");
    }
    for (int i = 0; i < ISSUE_ATTEMPTS; i++) {
      byte[] bits = new byte[16];
      random.nextBytes(bits);
      String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
      if (idempotency.store().issue(IdempotencyKey.of(scope, token), ttl, scopeCap)) {
        return token;
      }
    }
    throw new IdempotencyStoreException("could not issue a unique token for " + scope);
  }

  /** Runs {@code work} once for an issued token, with the engine's default config. */
  public <T extends @Nullable Object, E extends Exception> T execute(
      String scope, String token, Fingerprint fingerprint, ResultCodec<T> codec, Work<T, E> work)
      throws E {
    return executeWithStatus(scope, token, fingerprint, codec, work, idempotency.defaults())
        .value();
  }

  /**
   * Runs {@code work} once for an issued token under {@code config}.
   *
   * @throws UnknownTokenException the token is malformed, was never issued, or expired
   * @throws TokenAlreadyUsedException the token was used and repeats are refused
   */
  public <T extends @Nullable Object, E extends Exception> Executed<T> executeWithStatus(
      String scope,
      String token,
      Fingerprint fingerprint,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config)
      throws E {
    return executeWithStatus(scope, token, fingerprint, codec, work, config, Deferral.NONE);
  }

  /**
   * As {@link #executeWithStatus(String, String, Fingerprint, ResultCodec, Work,
   * IdempotencyConfig)}, with the outcome of work that ran handed to {@code deferral} instead of
   * the store, as {@link Idempotency#executeWithStatus(IdempotencyKey, Fingerprint, ResultCodec,
   * Work, IdempotencyConfig, Deferral)} does.
   *
   * @param deferral receives the held outcome, or {@link Deferral#NONE} to store it at once
   */
  public <T extends @Nullable Object, E extends Exception> Executed<T> executeWithStatus(
      String scope,
      String token,
      Fingerprint fingerprint,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config,
      Deferral deferral)
      throws E {
    return idempotency.run(
        request(scope, token, fingerprint, config),
        codec,
        work,
        config,
        replayUsed,
        deferral,
        null);
  }

  /**
   * As {@link #executeWithStatus(String, String, Fingerprint, ResultCodec, Work,
   * IdempotencyConfig)} for work that ends after it returns, as {@link Idempotency#executeAsync}
   * runs it: the claim and the settlement on {@code storeCalls}. A malformed token fails the
   * returned future.
   */
  public <T extends @Nullable Object> CompletableFuture<Executed<T>> executeAsync(
      String scope,
      String token,
      Fingerprint fingerprint,
      ResultCodec<T> codec,
      AsyncWork<T> work,
      IdempotencyConfig config,
      Executor storeCalls) {
    ClaimRequest request;
    try {
      request = request(scope, token, fingerprint, config);
    } catch (UnknownTokenException e) {
      return CompletableFuture.failedFuture(e);
    }
    return idempotency.runAsync(request, codec, work, config, replayUsed, storeCalls);
  }

  private ClaimRequest request(
      String scope, String token, Fingerprint fingerprint, IdempotencyConfig config) {
    if (token == null || !TOKEN_SHAPE.matcher(token).matches()) {
      throw new UnknownTokenException("malformed token");
    }
    return new ClaimRequest(
        IdempotencyKey.of(scope, token), fingerprint, config.lease(), true, scopeCap);
  }
}
