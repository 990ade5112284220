package dev.idem.spring.client;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
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

  private final int maxAttempts;
  private final Duration firstDelay;
  private final Duration maxDelay;
  private final Duration maxRetryAfter;
  private final Duration timeout;
  private final Supplier<String> keys;

  RetryRules(
      int maxAttempts,
      Duration firstDelay,
      Duration maxDelay,
      Duration maxRetryAfter,
      Duration timeout,
      Supplier<String> keys) {
    this.maxAttempts = maxAttempts;
    this.firstDelay = firstDelay;
    this.maxDelay = maxDelay;
    this.maxRetryAfter = maxRetryAfter;
    this.timeout = timeout;
    this.keys = keys;
  }

  /** Whether a call with {@code method} gets a key and retries; others pass through untouched. */
  boolean guards(HttpMethod method) {
    return GUARDED.contains(method);
  }

  /** Keeps the caller's key when the request has one, else gives it a fresh one. */
  void key(HttpHeaders headers) {
    if (!headers.containsHeader(IdempotentRetries.HEADER)) {
      headers.set(IdempotentRetries.HEADER, keys.get());
    }
  }

  /**
   * The failure that asks for another attempt when an answer with {@code status} is one to retry
   * (5xx, 429, and a 409 that says when to come back), its {@code Retry-After} noted in {@code
   * retryAfter} for the next wait; null when the answer is the caller's.
   *
   * <p>A 409 with {@code Retry-After} is a request still running (the server's in-progress answer
   * always has one); a 409 without it is a conflict of the business (an order already paid), which
   * asking again does not change.
   */
  RetryableAnswer retryable(int status, HttpHeaders headers, AtomicReference<Duration> retryAfter) {
    Duration wait = retryAfter(headers);
    boolean comeBack = headers.getFirst("Retry-After") != null; // a date too: the backoff waits
    boolean retried = status >= 500 || status == 429 || (status == 409 && comeBack);
    if (!retried) {
      return null;
    }
    retryAfter.set(wait);
    return new RetryableAnswer(status);
  }

  /**
   * The budget of one call: retries a {@link RetryableAnswer} and a {@code noAnswer} failure (the
   * client's kind of I/O failure), waiting as {@code retryAfter} says (up to the cap) or else with
   * exponential, jittered backoff, within the attempts and the time of the call.
   */
  RetryPolicy policy(AtomicReference<Duration> retryAfter, Class<? extends Throwable> noAnswer) {
    ExponentialBackOff backOff = new ExponentialBackOff(firstDelay.toMillis(), 2.0);
    backOff.setMaxInterval(maxDelay.toMillis());
    backOff.setJitter(firstDelay.toMillis() / 2);
    backOff.setMaxAttempts(maxAttempts - 1);
    return RetryPolicy.builder()
        .timeout(timeout)
        .predicate(e -> e instanceof RetryableAnswer || noAnswer.isInstance(e))
        .backOff(new RetryAfterBackOff(backOff, retryAfter, maxRetryAfter))
        .build();
  }

  // Retry-After in seconds; the HTTP-date form is rare from APIs and falls back to the backoff.
  private static Duration retryAfter(HttpHeaders headers) {
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
