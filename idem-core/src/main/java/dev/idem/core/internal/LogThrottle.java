package dev.idem.core.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * One log line per period at most for a failure that a stalled store repeats on every call, with
 * how many it stands for: the meters count each one, the log need not.
 */
public final class LogThrottle {

  private static final long PERIOD_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final LongSupplier clock;
  private final AtomicLong nextLine;
  private final AtomicInteger skipped = new AtomicInteger();

  public LogThrottle() {
    this(System::nanoTime);
  }

  LogThrottle(LongSupplier clock) {
    this.clock = clock;
    this.nextLine = new AtomicLong(clock.getAsLong());
  }

  /**
   * Whether a line is due now. When it is, {@link #skipped()} tells how many were not written since
   * the last one; when not, this one is counted among them.
   */
  public boolean due() {
    long now = clock.getAsLong();
    long next = nextLine.get();
    if (now - next < 0 || !nextLine.compareAndSet(next, now + PERIOD_NANOS)) {
      skipped.incrementAndGet();
      return false;
    }
    return true;
  }

  /** The lines not written since the last one, as a suffix for the line due now ("" if none). */
  public String skipped() {
    int more = skipped.getAndSet(0);
    return more == 0 ? "" : ", and " + more + " more since the last such line";
  }
}
