package dev.idem.core;

import dev.idem.core.internal.IssueBudget;
import dev.idem.core.store.ClaimRequest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Server-issued one-shot tokens (the article's section 2), on the same store and engine as keys.
 *
 * <p>{@link #issue} creates an ISSUED record under a random 128-bit token. The {@link #call} of a
 * token runs work only for one that was issued and has not expired: a forged, expired or unknown
 * token gets {@link UnknownTokenException}. A used token replays the first result, or is refused
 * with {@link TokenAlreadyUsedException} when built with {@code replayUsed = false}. A retryable
 * failure puts the token back to ISSUED, so the client can retry with it.
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

  /**
   * The call that runs work once for the issued {@code token} of {@code scope}: UTF-8 text and the
   * engine's defaults unless the call says otherwise. A forged, expired or unknown token is refused
   * when the call runs ({@link UnknownTokenException}); a used one replays the first result or,
   * when this service was built with {@code replayUsed = false}, is refused with {@link
   * TokenAlreadyUsedException}.
   *
   * @throws UnknownTokenException the token is malformed (not 22 URL-safe characters)
   */
  public IdempotentCall<String> call(String scope, String token, Fingerprint fingerprint) {
    if (token == null || !TOKEN_SHAPE.matcher(token).matches()) {
      throw new UnknownTokenException("malformed token");
    }
    return new IdempotentCall<>(
        idempotency,
        IdempotencyKey.of(scope, token),
        fingerprint,
        this,
        ResultCodec.utf8(),
        idempotency.defaults(),
        Deferral.NONE);
  }

  boolean replaysUsed() {
    return replayUsed;
  }

  int scopeCap() {
    return scopeCap;
  }
}
