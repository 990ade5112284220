package dev.idem.core.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a version-checked update until it wins the race, a bounded number of times, backing off with
 * exponential full jitter between tries.
 *
 * <p>A lost race is a normal outcome, signalled by an {@link Attempt} returning empty; the next
 * attempt starts after a delay drawn from {@code [0, min(maxDelay, baseDelay * 2^n)]}, where {@code
 * n} is 0 before the second attempt, 1 before the third, and so on. No delay follows the last
 * attempt. Anything the attempt throws is propagated at once.
 *
 * <p>Instances are immutable and thread-safe (given a thread-safe random generator), so one can be
 * shared by every caller. Build them with {@link #ofDefaults()}, {@link #custom()} or {@link
 * #from(OptimisticRetry)}.
 */
public final class OptimisticRetry {

  /** Default number of attempts, the first included. */
  public static final int DEFAULT_MAX_ATTEMPTS = 5;

  /** Default ceiling of the first backoff; each later ceiling doubles it. */
  public static final Duration DEFAULT_BASE_DELAY = Duration.ofMillis(5);

  /** Default cap on any single backoff. */
  public static final Duration DEFAULT_MAX_DELAY = Duration.ofMillis(200);

  private static final Logger log = LoggerFactory.getLogger(OptimisticRetry.class);

  private final int maxAttempts;
  private final Duration baseDelay;
  private final Duration maxDelay;
  private final RandomGenerator random;
  private final Sleeper sleeper;
  private final FullJitterBackoff backoff;

  OptimisticRetry(OptimisticRetryBuilder builder) {
    this.maxAttempts = builder.maxAttempts;
    this.baseDelay = builder.baseDelay;
    this.maxDelay = builder.maxDelay;
    this.random = builder.random;
    this.sleeper = builder.sleeper;
    this.backoff = new FullJitterBackoff(baseDelay, maxDelay, random);
  }

  /** Returns a retry with the {@code DEFAULT_*} settings, real sleeping and thread-local random. */
  public static OptimisticRetry ofDefaults() {
    return custom().build();
  }

  /** Returns a builder that starts from the defaults. */
  public static OptimisticRetryBuilder custom() {
    return new OptimisticRetryBuilder();
  }

  /** Returns a builder that starts from every setting of {@code base}. */
  public static OptimisticRetryBuilder from(OptimisticRetry base) {
    Objects.requireNonNull(base, "base");
    return custom()
        .maxAttempts(base.maxAttempts)
        .baseDelay(base.baseDelay)
        .maxDelay(base.maxDelay)
        .random(base.random)
        .sleeper(base.sleeper);
  }

  /**
   * Runs {@code attempt} until it returns a value, at most {@link #maxAttempts()} times.
   *
   * @return the value of the first attempt that won its race
   * @throws OptimisticRetryExhaustedException if every attempt lost its race
   * @throws OptimisticRetryInterruptedException if the thread was interrupted while backing off;
   *     the interrupt flag is set again before it is thrown
   * @throws RuntimeException whatever the attempt threw, unwrapped and without retrying
   */
  public <T> T execute(Attempt<T> attempt) {
    Objects.requireNonNull(attempt, "attempt");
    for (int made = 1; ; made++) {
      Optional<T> result =
          Objects.requireNonNull(attempt.run(), "an attempt must return an Optional, not null");
      if (result.isPresent()) {
        return result.get();
      }
      if (made == maxAttempts) {
        throw new OptimisticRetryExhaustedException(made);
      }
      Duration delay = backoff.delay(made - 1);
      log.debug("Version conflict on attempt {} of {}; retrying in {}", made, maxAttempts, delay);
      try {
        sleeper.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new OptimisticRetryInterruptedException(made, e);
      }
    }
  }

  /** Returns the most attempts {@link #execute(Attempt)} makes, the first included; at least 1. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** Returns the ceiling of the first backoff; never negative. */
  public Duration baseDelay() {
    return baseDelay;
  }

  /** Returns the cap on any single backoff; never below {@link #baseDelay()}. */
  public Duration maxDelay() {
    return maxDelay;
  }

  @Override
  public String toString() {
    return "OptimisticRetry[maxAttempts="
        + maxAttempts
        + ", baseDelay="
        + baseDelay
        + ", maxDelay="
        + maxDelay
        + "]";
  }
}
