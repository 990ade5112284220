package dev.idem.core.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Collects the settings of an {@link OptimisticRetry}. Setters reject {@code null} at once; ranges
 * are checked together in {@link #build()}. A builder is not thread-safe, but the retry it builds
 * is.
 */
public final class OptimisticRetryBuilder {

  int maxAttempts = OptimisticRetry.DEFAULT_MAX_ATTEMPTS;
  Duration baseDelay = OptimisticRetry.DEFAULT_BASE_DELAY;
  Duration maxDelay = OptimisticRetry.DEFAULT_MAX_DELAY;
  // Looked up on every draw so that a shared retry never pins one thread's generator.
  RandomGenerator random = () -> ThreadLocalRandom.current().nextLong();
  Sleeper sleeper = Sleeper.threadSleep();

  OptimisticRetryBuilder() {}

  /** Sets how many attempts to make in all, the first included; must be at least 1. */
  public OptimisticRetryBuilder maxAttempts(int maxAttempts) {
    this.maxAttempts = maxAttempts;
    return this;
  }

  /** Sets the ceiling of the first backoff; must not be negative. Zero retries at once. */
  public OptimisticRetryBuilder baseDelay(Duration baseDelay) {
    this.baseDelay = Objects.requireNonNull(baseDelay, "baseDelay");
    return this;
  }

  /** Sets the cap on any single backoff; must be at least the base delay. */
  public OptimisticRetryBuilder maxDelay(Duration maxDelay) {
    this.maxDelay = Objects.requireNonNull(maxDelay, "maxDelay");
    return this;
  }

  /**
   * Sets the source of jitter. It is called from every thread that runs the retry, so it must be
   * thread-safe unless the retry is confined to one thread (as in a test).
   */
  public OptimisticRetryBuilder random(RandomGenerator random) {
    this.random = Objects.requireNonNull(random, "random");
    return this;
  }

  /** Sets how backoff delays are waited out; by default {@link Sleeper#threadSleep()}. */
  public OptimisticRetryBuilder sleeper(Sleeper sleeper) {
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    return this;
  }

  /**
   * Returns a retry with these settings.
   *
   * @throws IllegalArgumentException if {@code maxAttempts} is below 1, {@code baseDelay} is
   *     negative, {@code maxDelay} is below {@code baseDelay}, or {@code maxDelay} exceeds 2^63-1
   *     nanoseconds
   */
  public OptimisticRetry build() {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
    return new OptimisticRetry(this);
  }
}
