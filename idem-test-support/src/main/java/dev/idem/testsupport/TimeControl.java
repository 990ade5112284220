package dev.idem.testsupport;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;

/**
 * How a contract suite lets time pass: a backend on a real server waits in real time, an in-memory
 * backend moves its {@link MutableClock}.
 */
@FunctionalInterface
public interface TimeControl {

  /** Returns once at least {@code amount} has passed for the store under test. */
  void pass(Duration amount);

  /**
   * The store's time now; for a store on a server, this machine's clock, which is as close to the
   * server's as the suites need.
   */
  default Instant now() {
    return Instant.now();
  }

  /** Waits in real time. */
  static TimeControl realTime() {
    return amount -> {
      long end = System.nanoTime() + amount.toNanos();
      for (long left = amount.toNanos(); left > 0; left = end - System.nanoTime()) {
        LockSupport.parkNanos(left);
      }
    };
  }

  /** Moves {@code clock}. */
  static TimeControl of(MutableClock clock) {
    return new TimeControl() {
      @Override
      public void pass(Duration amount) {
        clock.advance(amount);
      }

      @Override
      public Instant now() {
        return clock.instant();
      }
    };
  }
}
