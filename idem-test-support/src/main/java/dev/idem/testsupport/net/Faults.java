package dev.idem.testsupport.net;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The faults a {@link FaultProxy} applies now, read by every connection's threads, and counters.
 */
final class Faults {

  volatile Duration latency = Duration.ZERO;
  volatile boolean blackhole;
  volatile boolean refuse;
  private boolean hold;
  final AtomicInteger repliesToLose = new AtomicInteger();
  final AtomicLong forwarded = new AtomicLong();
  final AtomicLong dropped = new AtomicLong();

  synchronized void hold(boolean on) {
    hold = on;
    if (!on) {
      notifyAll();
    }
  }

  /** Takes one of the replies to lose, if any are left. */
  boolean loseReply() {
    return repliesToLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
  }

  /** Returns once nothing is held back (at once when {@link #hold(boolean)} is off). */
  synchronized void awaitRelease() throws InterruptedException {
    while (hold) {
      wait();
    }
  }
}
