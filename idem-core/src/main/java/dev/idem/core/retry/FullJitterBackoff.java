package dev.idem.core.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter: the delay before retry {@code n} (counting from 0) is drawn
 * uniformly from {@code [0, min(maxDelay, baseDelay * 2^n)]}.
 *
 * <p>Full jitter spreads competing writers over the whole window rather than around its edge, so
 * threads that lost the same race do not collide again in lockstep. Immutable and thread-safe if
 * its random generator is.
 */
final class FullJitterBackoff {

  private final long baseNanos;
  private final long maxNanos;
  private final RandomGenerator random;

  /**
   * Creates a backoff.
   *
   * @throws IllegalArgumentException if a delay is negative, {@code maxDelay} is below {@code
   *     baseDelay}, or {@code maxDelay} does not fit in a {@code long} of nanoseconds
   */
  FullJitterBackoff(Duration baseDelay, Duration maxDelay, RandomGenerator random) {
    Objects.requireNonNull(baseDelay, "baseDelay");
    Objects.requireNonNull(maxDelay, "maxDelay");
    this.random = Objects.requireNonNull(random, "random");
    if (baseDelay.isNegative()) {
      throw new IllegalArgumentException("baseDelay must not be negative, was " + baseDelay);
    }
    if (maxDelay.compareTo(baseDelay) < 0) {
      throw new IllegalArgumentException(
          "maxDelay must be at least baseDelay (" + baseDelay + "), was " + maxDelay);
    }
    if (maxDelay.compareTo(Duration.ofNanos(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException(
          "maxDelay must fit in 2^63-1 nanoseconds, was " + maxDelay);
    }
    this.baseNanos = baseDelay.toNanos();
    this.maxNanos = maxDelay.toNanos();
  }

  /**
   * Returns the upper bound of the delay before retry {@code retry}: {@code min(maxDelay, baseDelay
   * * 2^retry)}, computed without overflow.
   *
   * @throws IllegalArgumentException if {@code retry} is negative
   */
  Duration ceiling(int retry) {
    return Duration.ofNanos(ceilingNanos(retry));
  }

  /**
   * Draws the delay before retry {@code retry}, uniformly from zero to {@link #ceiling(int)}, both
   * inclusive.
   *
   * @throws IllegalArgumentException if {@code retry} is negative
   */
  Duration delay(int retry) {
    long ceiling = ceilingNanos(retry);
    // nextLong(bound) excludes the bound, and ceiling + 1 would overflow at the very top; there,
    // clearing the sign bit of a full draw is uniform over [0, Long.MAX_VALUE].
    long drawn =
        ceiling == Long.MAX_VALUE
            ? random.nextLong() & Long.MAX_VALUE
            : random.nextLong(ceiling + 1);
    return Duration.ofNanos(drawn);
  }

  private long ceilingNanos(int retry) {
    if (retry < 0) {
      throw new IllegalArgumentException("retry must not be negative, was " + retry);
    }
    if (baseNanos == 0) {
      return 0;
    }
    // base * 2^retry stays within max exactly when base <= max / 2^retry.
    if (retry >= Long.SIZE - 1 || baseNanos > (maxNanos >> retry)) {
      return maxNanos;
    }
    return baseNanos << retry;
  }
}
