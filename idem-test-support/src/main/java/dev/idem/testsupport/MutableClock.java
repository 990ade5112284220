package dev.idem.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that tests move forward by hand. It is either stopped (it reads the same instant until
 * advanced) or ticking (it follows the system clock, plus everything it was advanced by). The
 * ticking kind suits code that also waits in real time, such as a lock watchdog, while still
 * letting a test skip over a lease at once.
 *
 * <p>Thread-safe: any thread may read or advance it. It never moves backwards. Clocks returned by
 * {@link #withZone} share the advance with the clock they came from.
 */
public final class MutableClock extends Clock {

  private final Clock base;
  private final AtomicReference<Duration> offset;

  private MutableClock(Clock base, AtomicReference<Duration> offset) {
    this.base = base;
    this.offset = offset;
  }

  /** A clock in UTC that reads {@code start} until it is advanced. */
  public static MutableClock stoppedAt(Instant start) {
    Objects.requireNonNull(start, "start must not be null");
    return new MutableClock(
        Clock.fixed(start, ZoneOffset.UTC), new AtomicReference<>(Duration.ZERO));
  }

  /** A clock in UTC that follows {@link Clock#systemUTC()}, plus whatever it is advanced by. */
  public static MutableClock ticking() {
    return new MutableClock(Clock.systemUTC(), new AtomicReference<>(Duration.ZERO));
  }

  /**
   * Moves the clock forward by {@code amount}, at once, for every reader.
   *
   * @throws IllegalArgumentException if {@code amount} is negative
   */
  public void advance(Duration amount) {
    Objects.requireNonNull(amount, "amount must not be null");
    if (amount.isNegative()) {
      throw new IllegalArgumentException("a clock only moves forward, was asked to move " + amount);
    }
    offset.accumulateAndGet(amount, Duration::plus);
  }

  @Override
  public Instant instant() {
    return base.instant().plus(offset.get());
  }

  @Override
  public ZoneId getZone() {
    return base.getZone();
  }

  @Override
  public MutableClock withZone(ZoneId zone) {
    return new MutableClock(base.withZone(zone), offset);
  }

  @Override
  public String toString() {
    return "MutableClock[" + instant() + ", " + getZone() + "]";
  }
}
