package dev.idem.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code idem.client.*} properties: whether the application's {@code RestClient} and {@code
 * WebClient} builders get Idem's retries, and their budget.
 */
public class IdemClientProperties {
  /**
   * Whether every {@code RestClient.Builder} and {@code WebClient.Builder} Spring Boot hands out
   * gets Idem's retries (one Idempotency-Key per POST or PATCH call, kept across its retries). Off
   * by default: it changes what every client of the application sends.
   */
  private boolean retries;

  /** Attempts per call in all, the first included. */
  private int maxAttempts = 4;

  /** The wait before the first retry; each later one doubles it, up to {@code max-delay}. */
  private Duration firstDelay = Duration.ofMillis(100);

  /** The longest wait between two attempts without a {@code Retry-After}. */
  private Duration maxDelay = Duration.ofSeconds(2);

  /** The longest {@code Retry-After} honoured; a longer one is cut to it. */
  private Duration maxRetryAfter = Duration.ofSeconds(10);

  /** The time all attempts of one call may take together, waits included. */
  private Duration timeout = Duration.ofSeconds(30);

  /**
   * Servers known to honour Idempotency-Key ({@code https://payments.example.com}): only they are
   * sent a request again whose outcome is unknown (no answer, 502, 504). Others are learned when
   * they mark an answer Idempotent-Replayed.
   */
  private List<String> keysHonouredBy = new ArrayList<>();

  /** Whether a 500 from a server that honours the key is retried. */
  private boolean retryServerErrors;

  public List<String> getKeysHonouredBy() {
    return keysHonouredBy;
  }

  public void setKeysHonouredBy(List<String> keysHonouredBy) {
    this.keysHonouredBy = keysHonouredBy;
  }

  public boolean isRetryServerErrors() {
    return retryServerErrors;
  }

  public void setRetryServerErrors(boolean retryServerErrors) {
    this.retryServerErrors = retryServerErrors;
  }

  public boolean isRetries() {
    return retries;
  }

  public void setRetries(boolean retries) {
    this.retries = retries;
  }

  public int getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(int maxAttempts) {
    this.maxAttempts = maxAttempts;
  }

  public Duration getFirstDelay() {
    return firstDelay;
  }

  public void setFirstDelay(Duration firstDelay) {
    this.firstDelay = firstDelay;
  }

  public Duration getMaxDelay() {
    return maxDelay;
  }

  public void setMaxDelay(Duration maxDelay) {
    this.maxDelay = maxDelay;
  }

  public Duration getMaxRetryAfter() {
    return maxRetryAfter;
  }

  public void setMaxRetryAfter(Duration maxRetryAfter) {
    this.maxRetryAfter = maxRetryAfter;
  }

  public Duration getTimeout() {
    return timeout;
  }

  public void setTimeout(Duration timeout) {
    this.timeout = timeout;
  }
}
