package dev.idem.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogThrottleTest {

  private final AtomicLong now = new AtomicLong(1_000);
  private final LogThrottle throttle = new LogThrottle(now::get);

  @Test
  void oneLineIsDueAtFirstThenOnePerPeriodCountingTheOthers() {
    assertThat(throttle.due()).isTrue();
    assertThat(throttle.skipped()).isEmpty();
    assertThat(throttle.due()).isFalse();
    assertThat(throttle.due()).isFalse();

    now.addAndGet(TimeUnit.SECONDS.toNanos(10));

    assertThat(throttle.due()).isTrue();
    assertThat(throttle.skipped()).isEqualTo(", and 2 more since the last such line");
    assertThat(throttle.due()).isFalse();
  }
}
