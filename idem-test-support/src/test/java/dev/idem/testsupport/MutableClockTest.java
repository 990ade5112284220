package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class MutableClockTest {

  private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");

  @Test
  void aStoppedClockReadsTheSameInstantUntilAdvanced() {
    MutableClock clock = MutableClock.stoppedAt(START);

    assertThat(clock.instant()).isEqualTo(START);
    clock.advance(Duration.ofSeconds(90));

    assertThat(clock.instant()).isEqualTo(START.plusSeconds(90));
    assertThat(clock.millis()).isEqualTo(START.plusSeconds(90).toEpochMilli());
  }

  @Test
  void aTickingClockRunsAheadOfTheSystemClockByWhatItWasAdvanced() {
    MutableClock clock = MutableClock.ticking();

    clock.advance(Duration.ofDays(1));

    assertThat(clock.instant()).isAfter(Instant.now().plus(Duration.ofHours(23)));
  }

  @Test
  void aZonedCopySharesTheAdvance() {
    MutableClock clock = MutableClock.stoppedAt(START);
    MutableClock paris = clock.withZone(ZoneId.of("Europe/Paris"));

    clock.advance(Duration.ofMinutes(5));

    assertThat(paris.instant()).isEqualTo(START.plusSeconds(300));
    assertThat(paris.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));
  }

  @Test
  void refusesToMoveBackwards() {
    MutableClock clock = MutableClock.stoppedAt(START);

    assertThatIllegalArgumentException()
        .isThrownBy(() -> clock.advance(Duration.ofSeconds(-1)))
        .withMessageContaining("only moves forward");
    assertThat(clock.instant()).isEqualTo(START);
  }
}
