package dev.idem.spring.client;

import dev.idem.core.ExecutionContext;
import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The rules of the client side of a retry, in one place for every HTTP client Idem wraps: which
 * calls are guarded and under which key, which answers and failures are retried, how long to wait
 * before the next attempt and the budget of attempts and time. The clients only run them ({@link
 * IdempotentRetries} on Spring's {@code RetryTemplate}, {@link IdempotentExchangeRetries} on
 * Reactor). Immutable.
 */
final class RetryRules {

  private static final Set<HttpMethod> GUARDED = Set.of(HttpMethod.POST, HttpMethod.PATCH);

  /** The header an Idem server (and any that follows the draft) marks a replayed answer with. */
  static final String REPLAYED = "Idempotent-Replayed";

  // Servers learned from their replays; bounded, so a client of many hosts cannot grow it forever.
  private static final int MAX_LEARNED = 10_000;

  private final int maxAttempts;
  private final Duration firstDelay;
  private final Duration maxDelay;
  private final Duration maxRetryAfter;
  private final Duration timeout;
  private final Supplier<String> keys;
  private final Set<String> listed;
  private final boolean retryServerErrors;
  private final Set<String> learned = ConcurrentHashMap.newKeySet();

  RetryRules(
      int maxAttempts,
      Duration firstDelay,
      Duration maxDelay,
      Duration maxRetryAfter,
      Duration timeout,
      Supplier<String> keys,
      Set<String> honouring,
      boolean retryServerErrors) {
    this.maxAttempts = maxAttempts;
    this.firstDelay = firstDelay;
    this.maxDelay = maxDelay;
    this.maxRetryAfter = maxRetryAfter;
    this.timeout = timeout;
    this.keys = keys;
    this.listed = Set.copyOf(honouring);
    this.retryServerErrors = retryServerErrors;
  }

  /**
   * The origin ({@code scheme://host:port}) of {@code uri}, as the list of servers that honour the
   * key names them.
   */
  static @Nullable String origin(URI uri) {
    String scheme = uri.getScheme() == null ? "http" : uri.getScheme().toLowerCase(Locale.ROOT);
    int port = uri.getPort();
    if (port < 0) {
      port = scheme.equals("https") ? 443 : 80;
    }
    String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
    return scheme + "://" + host + ":" + port;
  }

  /**
   * Whether the server at {@code uri} is known to honour the key: the application listed it, or an
   * answer from it was marked replayed. Only such a server is sent a request again whose outcome is
   * unknown (sent without an answer, or answered 5xx): another could run it twice.
   */
  boolean honoured(URI uri) {
    String origin = origin(uri);
    return listed.contains(origin) || learned.contains(origin);
  }

  /** Notes an answer from {@code uri}: one marked replayed shows that its server keeps keys. */
  void saw(URI uri, HttpHeaders headers) {
    if ("true".equalsIgnoreCase(headers.getFirst(REPLAYED)) && learned.size() < MAX_LEARNED) {
      learned.add(origin(uri));
    }
  }

  /** Whether a call with {@code method} gets a key and retries; others pass through untouched. */
  boolean guards(HttpMethod method) {
    return GUARDED.contains(method);
  }

  /**
   * Keeps the caller's key when the request has one; else, made inside a step of guarded work, a
   * key derived from the step's and the request's method and path (the same on every run of the
   * work, so a rerun's call is deduplicated downstream too, whichever host a load balancer picks
   * and whatever query a signature adds, while two calls to two paths get two keys); else a fresh
   * one.
   */
  void key(HttpHeaders headers, HttpMethod method, URI uri) {
    if (!headers.containsHeader(IdempotentRetries.HEADER)) {
      headers.set(IdempotentRetries.HEADER, stepKey(method, uri).orElseGet(keys));
    }
  }

  private static Optional<String> stepKey(HttpMethod method, URI uri) {
    return ExecutionContext.current()
        .map(ExecutionContext::key)
        .filter(IdempotencyKey::isStep)
        .map(step -> Fingerprint.of("http", step.digest(), method.name(), path(uri)).value());
  }

  private static String path(URI uri) {
    String path = uri.getRawPath();
    return path == null || path.isEmpty() ? "/" : path;
  }

  /**
   * The failure that asks for another attempt when an answer with {@code status} from {@code uri}
   * is one to retry, its {@code Retry-After} noted in {@code retryAfter} for the next wait; null
   * when the answer is the caller's.
   *
   * <p>A refusal says the request did not run, so any server is asked again: 429, and a 503 or a
   * 409 with {@code Retry-After} (a 409 so is a request still running: the server's in-progress
   * answer always has one; a 409 without it is a conflict of the business, which asking again does
   * not change; a 503 without it may come from a proxy after its upstream took the request, so it
   * is retried only to a server that honours the key). Any other 5xx leaves the outcome unknown
   * (the effect may have committed before the failure), so it is retried only to a server that
   * honours the key, and a 500 only when {@code retryServerErrors} says so.
   */
  @Nullable RetryableAnswer retryable(
      URI uri, int status, HttpHeaders headers, AtomicReference<@Nullable Duration> retryAfter) {
    saw(uri, headers);
    Duration wait = retryAfter(headers);
    boolean comeBack = headers.getFirst("Retry-After") != null; // a date too: the backoff waits
    // a 503 without Retry-After may come from a proxy whose upstream failed after taking the
    // request: only one that says when to come back, or from a server that keeps keys, is retried
    boolean refused =
        status == 429
            || ((status == 409 || status == 503) && comeBack)
            || (status == 503 && honoured(uri));
    boolean unknown =
        status >= 500 && status != 503 && (status != 500 || retryServerErrors) && honoured(uri);
    if (!refused && !unknown) {
      return null;
    }
    retryAfter.set(wait);
    return new RetryableAnswer(status);
  }

  /**
   * The budget of one call to {@code uri}: retries a {@link RetryableAnswer}, and a {@code
   * noAnswer} failure (the client's kind of I/O failure: sent, no answer) when the server honours
   * the key, waiting as {@code retryAfter} says (up to the cap) or else with exponential, jittered
   * backoff, within the attempts and the time of the call.
   */
  RetryPolicy policy(
      URI uri,
      AtomicReference<@Nullable Duration> retryAfter,
      Class<? extends Throwable> noAnswer) {
    ExponentialBackOff backOff = new ExponentialBackOff(firstDelay.toMillis(), 2.0);
    backOff.setMaxInterval(maxDelay.toMillis());
    backOff.setJitter(firstDelay.toMillis() / 2);
    backOff.setMaxAttempts(maxAttempts - 1);
    return RetryPolicy.builder()
        .timeout(timeout)
        .predicate(e -> e instanceof RetryableAnswer || (noAnswer.isInstance(e) && honoured(uri)))
        .backOff(new RetryAfterBackOff(backOff, retryAfter, maxRetryAfter))
        .build();
  }

  // Retry-After in seconds; the HTTP-date form is rare from APIs and falls back to the backoff.
  private static @Nullable Duration retryAfter(HttpHeaders headers) {
    String value = headers.getFirst("Retry-After");
    if (value == null) {
      return null;
    }
    try {
      long seconds = Long.parseLong(value.trim());
      return seconds < 0 ? null : Duration.ofSeconds(seconds);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** A retryable answer, failed inside a retry to ask for another attempt. */
  static final class RetryableAnswer extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RetryableAnswer(int status) {
      super("retryable answer " + status, null, false, false);
    }
  }
}
