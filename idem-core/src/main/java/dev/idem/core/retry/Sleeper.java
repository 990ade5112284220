package dev.idem.core.retry;

import java.time.Duration;

/**
 * Waits out a backoff delay. {@link OptimisticRetry} takes one so that tests can record the delays
 * instead of waiting, and so that callers can plug in a scheduler-friendly pause.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * Blocks the calling thread for about {@code duration}; a zero duration returns at once.
   *
   * @throws InterruptedException if the thread is interrupted before or while waiting; the
   *     implementation may clear the interrupt flag, as {@link Thread#sleep(long)} does
   */
  void sleep(Duration duration) throws InterruptedException;

  /**
   * Returns a sleeper backed by {@link Thread#sleep(long, int)}. Its resolution is the JDK's: on
   * Java 17 a sub-millisecond delay sleeps for about a millisecond.
   */
  static Sleeper threadSleep() {
    return duration -> {
      long nanos = duration.toNanos();
      if (nanos > 0) {
        Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
      }
    };
  }
}
