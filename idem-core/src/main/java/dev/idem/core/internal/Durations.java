package dev.idem.core.internal;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;

/**
 * Time arithmetic that saturates instead of overflowing, so that a caller may pass a very long wait
 * or lease (say, a thousand years) to mean "as good as forever". Not part of the public API.
 */
public final class Durations {

  private Durations() {}

  /** {@code duration} in nanoseconds, or {@link Long#MAX_VALUE} if it does not fit. */
  public static long toNanosSaturated(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }

  /** {@code instant} plus {@code duration}, or {@link Instant#MAX} if the sum lies beyond it. */
  public static Instant plusSaturated(Instant instant, Duration duration) {
    try {
      return instant.plus(duration);
    } catch (ArithmeticException | DateTimeException tooLong) {
      return Instant.MAX;
    }
  }
}
