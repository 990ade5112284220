package dev.idem.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that stands still until a test moves it; thread-safe. */
public final class MutableClock extends Clock {

  private final AtomicReference<Instant> now;

  /** A clock standing at {@code start}. */
  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** A clock standing at the current system time. */
  public static MutableClock startingNow() {
    return new MutableClock(Instant.now());
  }

  /** Moves the clock forward by {@code amount}. */
  public void advance(Duration amount) {
    now.updateAndGet(t -> t.plus(amount));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
