package dev.idem.spring.web.internal;

import dev.idem.core.ExecutionContext;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyException;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotentCall;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.ResultCodec;
import dev.idem.core.TokenService;
import dev.idem.core.UnknownTokenException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP rules of the {@code Idempotency-Key} filters, written once for Spring MVC and WebFlux,
 * whose filters only move bytes and tell these rules what happened: which requests are guarded and
 * under which key or token, the scope a key is claimed in, which answer is stored (and which goes
 * out unstored, freeing the key), what a failure after the answer began to go out or a lost lease
 * means, and the problem answers of a request refused before its claim.
 */
public final class HttpRules {

  private static final Logger log = LoggerFactory.getLogger(HttpRules.class);

  private static final ProblemAnswer ROLLED_BACK =
      new ProblemAnswer(
              503,
              "rolled-back",
              "The request's transaction rolled back",
              "The transaction this request ran in rolled back, so nothing it did was kept. Send it"
                  + " again.",
              null)
          .retryAfter("1");

  private static final ProblemAnswer TOO_LARGE =
      new ProblemAnswer(413, "body-too-large", "Request body over the limit", null, null);

  /**
   * The key a guarded request runs under: its {@code Idempotency-Key} (parsed, quotes removed) or,
   * when it has none, its {@code X-Idempotent-Token}.
   */
  public record GuardedKey(@Nullable String key, @Nullable String token) {

    public GuardedKey {
      if (key == null && token == null) {
        throw new IllegalArgumentException("a key or a token");
      }
    }

    /** The value the store keys the record by, which the handler reads from a request attribute. */
    public String value() {
      return key != null ? key : Objects.requireNonNull(token);
    }
  }

  /**
   * An Idem exception that escaped the handler (a bean method it called refused, and no exception
   * handler of the application's answered it: a functional route's), as against one of the filter's
   * own claim. Its answer is {@link ProblemAnswer#escaped}: the exception's message speaks of the
   * application, not of the request's key.
   */
  public static final class Escaped extends RuntimeException {
    private final IdempotencyException refusal;

    public Escaped(IdempotencyException refusal) {
      super(refusal.getMessage(), refusal, false, false);
      this.refusal = refusal;
    }

    public IdempotencyException refusal() {
      return refusal;
    }
  }

  /** {@code failure} of the handler chain, an Idem exception marked as {@link Escaped}. */
  public static <T extends Throwable> Throwable escaped(T failure) {
    return failure instanceof IdempotencyException refusal ? new Escaped(refusal) : failure;
  }

  /** A handler's answer as the filter captured it. */
  public interface Answer {

    int status();

    /** The answer's {@code Retry-After} header, or null. */
    @Nullable String retryAfter();

    /** The bytes of body the handler wrote, held or passed on. */
    long bodySize();

    /** Status, headers and body, to store. */
    StoredResponse snapshot();

    /** Status and headers, marked as an answer whose body is not kept. */
    StoredResponse snapshotWithoutBody();
  }

  private final Idempotency idempotency;
  private final TokenService tokens;
  private final long maxBodyBytes;
  private volatile ResultCodec<StoredResponse> codec = StoredResponse.codec();

  /**
   * @param maxBodyBytes the largest request body read and response body stored
   */
  public HttpRules(Idempotency idempotency, TokenService tokens, long maxBodyBytes) {
    this.idempotency = idempotency;
    this.tokens = tokens;
    this.maxBodyBytes = maxBodyBytes;
  }

  public long maxBodyBytes() {
    return maxBodyBytes;
  }

  public Idempotency idempotency() {
    return idempotency;
  }

  /**
   * Keeps stored 4xx answers no longer than {@code retention} (when it is shorter than the
   * operation's retention); null keeps them as long as any answer.
   */
  public void setClientErrorRetention(Duration retention) {
    this.codec = StoredResponse.codec(retention);
  }

  /**
   * The key a request to {@code route} runs under, or null when it passes unguarded (the route does
   * not require a key and the request brings neither key nor token).
   *
   * @param keys every {@code Idempotency-Key} header value sent
   * @param token the {@code X-Idempotent-Token} header, or null
   * @throws InvalidKeyException when the key is malformed, sent twice with other values, or missing
   *     on a route that requires one
   */
  public static @Nullable GuardedKey keyOf(Route route, List<String> keys, @Nullable String token) {
    if (keys.isEmpty() && token == null && !route.required()) {
      return null;
    }
    String key = parseKey(keys);
    if (key == null && token == null) {
      throw InvalidKeyException.missing("this route needs an Idempotency-Key header");
    }
    return new GuardedKey(key, token);
  }

  /**
   * The key that the {@code Idempotency-Key} header values mean, or null when the header is absent.
   * A value is a structured-field string ({@code "abc"}, RFC 8941) or a bare token ({@code abc});
   * both mean the key {@code abc}. Sent more than once, every value must mean the same key.
   *
   * @throws InvalidKeyException when a value is empty, too long, not visible ASCII, badly quoted,
   *     or the values disagree
   */
  public static @Nullable String parseKey(List<String> values) {
    String key = null;
    for (String raw : values) {
      String value = parseOne(raw);
      if (key != null && !key.equals(value)) {
        throw new InvalidKeyException("Idempotency-Key was sent twice with different values");
      }
      key = value;
    }
    return key;
  }

  private static String parseOne(String raw) {
    String text = raw == null ? "" : raw.strip();
    String value = text.startsWith("\"") ? unquote(text) : text;
    if (!IdempotencyKey.isValidValue(value)) {
      throw new InvalidKeyException(
          "Idempotency-Key must be 1 to "
              + IdempotencyKey.MAX_VALUE_LENGTH
              + " visible ASCII characters");
    }
    return value;
  }

  private static String unquote(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 1; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"') {
        if (i != text.length() - 1) {
          throw new InvalidKeyException("Idempotency-Key has data after its closing quote");
        }
        return out.toString();
      }
      if (c == '\\') {
        i++;
        if (i >= text.length() || (text.charAt(i) != '"' && text.charAt(i) != '\\')) {
          throw new InvalidKeyException("Idempotency-Key has a bad escape");
        }
        c = text.charAt(i);
      } else if (c < 0x20 || c > 0x7e) {
        throw new InvalidKeyException("Idempotency-Key holds a character outside visible ASCII");
      }
      out.append(c);
    }
    throw new InvalidKeyException("Idempotency-Key has no closing quote");
  }

  /**
   * The call of the route's key in the caller's scope, or of the caller's token, with the route's
   * config and the codec of answers; the filter runs it, on its thread or in a stage.
   *
   * @throws UnknownTokenException a malformed token
   * @throws InvalidKeyException a key the scope cannot hold
   */
  public IdempotentCall<StoredResponse> call(
      Route route, GuardedKey key, String caller, Fingerprint fingerprint) {
    IdempotentCall<String> call =
        key.key() == null
            ? tokens.call(TokenService.scopeFor(caller), key.value(), fingerprint)
            : idempotency.call(keyIn(route, caller, key), fingerprint);
    return call.codec(codec).config(route.config());
  }

  /**
   * The answer to store. One that goes to the client unstored, which frees the key, is discarded
   * through {@code work} ({@link ExecutionContext#discardOutcome()}) and stands as its status and
   * headers: a retryable status ({@link Route#isRetryable}), or a request refused before its
   * handler ran. When a transaction around the filter decides, every answer is stored with it. An
   * answer whose body is over the limit keeps the key: its status and headers are stored, and
   * repeats learn that its body is not kept.
   *
   * @param work the context of the call the answer ends
   * @param refusedBeforeHandler the stack saw the request refused before its handler ran
   * @param transactionDecides a transaction around the filter stores or frees whatever it answers
   */
  public StoredResponse outcome(
      ExecutionContext work,
      Route route,
      Answer answer,
      boolean refusedBeforeHandler,
      boolean transactionDecides) {
    boolean unstored =
        refusedBeforeHandler || route.isRetryable(answer.status(), answer.retryAfter());
    if (unstored && !transactionDecides) {
      work.discardOutcome();
      return answer.snapshotWithoutBody();
    }
    if (answer.bodySize() > maxBodyBytes) {
      log.warn(
          "response body of {} bytes is over idem.http.max-body-bytes ({}); status and headers"
              + " stored, repeats get a not-replayable problem",
          answer.bodySize(),
          maxBodyBytes);
      return answer.snapshotWithoutBody();
    }
    return answer.snapshot();
  }

  /**
   * The outcome of a handler that failed after part of its answer reached the client (the client
   * gone mid-answer): it ran, so its key must not be freed for a second run.
   */
  public static StoredResponse afterPassThrough(Route route, Answer answer, Throwable failure) {
    log.warn(
        "{} failed after its answer began to go out ({}); the key stays taken",
        route.operation(),
        failure.toString());
    return answer.snapshotWithoutBody();
  }

  /**
   * Logs a handler that ran but whose answer was not stored, because another owner took the key
   * over first; its answer still goes to its client.
   */
  public static void leaseLost(Route route, Exception lost) {
    log.warn("{} ran but its outcome was not stored: {}", route.operation(), lost.toString());
  }

  /** The answer to a request whose body is over the limit, refused before its claim. */
  public static ProblemAnswer tooLarge() {
    return TOO_LARGE;
  }

  /**
   * The answer to a request whose transaction around the filter rolled back after the handler
   * answered: nothing it did was kept and its key is free, so it can be sent again.
   */
  public static ProblemAnswer rolledBack() {
    return ROLLED_BACK;
  }

  /**
   * The answer to a request whose body cannot be read as its content type says, refused before its
   * claim.
   *
   * @param what the kind of body, as the client reads it ({@code form}, {@code multipart})
   */
  public static ProblemAnswer malformed(String what) {
    return new ProblemAnswer(400, "malformed-body", "Malformed " + what + " body", null, null);
  }

  private static IdempotencyKey keyIn(Route route, String caller, GuardedKey key) {
    return IdempotencyKey.of(IdempotencyKey.scope(route.operation(), caller), key.value());
  }
}
