package dev.idem.spring.aop.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.time.Instant;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The slot a scheduled run stands for is the same on every node that fires it, whatever each node's
 * clock reads within the slot, and a run that starts late still stands for its slot.
 */
class ScheduledSlotTest {

  private static final UnaryOperator<String> NONE = UnaryOperator.identity();

  @Test
  void nodesWhoseClocksDifferFireACronSlotAsOneSlot() {
    ScheduledSlot slot = ScheduledSlot.of("job", method("everyFiveMinutes"), NONE);
    Instant meant = Instant.parse("2026-12-05T10:05:00Z");

    // each node fires when its own clock reads 10:05: a hair early, on time, late, very late
    for (String read :
        new String[] {
          "2026-12-05T10:04:59.900Z",
          "2026-12-05T10:05:00Z",
          "2026-12-05T10:05:00.250Z",
          "2026-12-05T10:07:30Z",
          "2026-12-05T10:09:58.999Z"
        }) {
      assertThat(slot.slotAt(Instant.parse(read))).as(read).isEqualTo(meant);
    }
    assertThat(slot.keyAt(meant)).isEqualTo("2026-12-05T10:05:00Z");
    assertThat(slot.slotAt(Instant.parse("2026-12-05T10:10:00.010Z")))
        .isEqualTo(Instant.parse("2026-12-05T10:10:00Z"));
  }

  @Test
  void aRareCronSlotIsFoundFarBack() {
    ScheduledSlot slot = ScheduledSlot.of("job", method("yearly"), NONE);

    assertThat(slot.slotAt(Instant.parse("2026-12-05T10:05:00Z")))
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Test
  void aFixedRateCountsInWindowsSinceTheEpoch() {
    ScheduledSlot slot = ScheduledSlot.of("job", method("everySecond"), NONE);

    assertThat(slot.slotAt(Instant.ofEpochMilli(12_345))).isEqualTo(Instant.ofEpochMilli(12_000));
    assertThat(slot.slotAt(Instant.ofEpochMilli(12_999))).isEqualTo(Instant.ofEpochMilli(12_000));
    assertThat(slot.slotAt(Instant.ofEpochMilli(13_000))).isEqualTo(Instant.ofEpochMilli(13_000));
  }

  @Test
  void placeholdersAndDelaysAsStringsAreResolved() {
    UnaryOperator<String> properties =
        text -> Map.of("${job.cron}", "0 0 * * * *", "${job.delay}", "2m").getOrDefault(text, text);

    assertThat(
            ScheduledSlot.of("job", method("fromProperties"), properties)
                .slotAt(Instant.parse("2026-12-05T10:59:58.500Z")))
        .isEqualTo(Instant.parse("2026-12-05T10:00:00Z"));
    assertThat(
            ScheduledSlot.of("job", method("delayFromProperties"), properties)
                .slotAt(Instant.ofEpochMilli(250_000)))
        .isEqualTo(Instant.ofEpochMilli(240_000));
  }

  @Test
  void aMethodWithSeveralSchedulesNamesAKey() {
    assertThatThrownBy(() -> ScheduledSlot.of("job", method("twice"), NONE))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("job")
        .hasMessageContaining("name a key expression");
  }

  @Test
  void aDisabledOrNeverFiringCronFiresNeverItself() {
    UnaryOperator<String> disabled = text -> "${job.cron}".equals(text) ? "-" : text;
    Instant now = Instant.parse("2026-12-05T10:05:00Z");

    assertThat(ScheduledSlot.of("job", method("fromProperties"), disabled).fires(now)).isFalse();
    assertThat(ScheduledSlot.of("job", method("february30"), NONE).fires(now)).isFalse();
    assertThat(ScheduledSlot.of("job", method("yearly"), NONE).fires(now)).isTrue();
  }

  @Test
  void aCronOnlySpelCanReadAndARunThatEndsLaterNameAKey() {
    assertThatThrownBy(() -> ScheduledSlot.of("job", method("bySpel"), NONE))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot be read");
    assertThatThrownBy(
            () -> MethodPlan.requireKeys(Later.class, new IdempotentMethodPointcut(), NONE))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Later.later")
        .hasMessageContaining("return void, or name a key expression");
  }

  private static Method method(String name) {
    try {
      return Jobs.class.getDeclaredMethod(name);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  static class Jobs {
    @Scheduled(cron = "0 */5 * * * *", zone = "UTC")
    void everyFiveMinutes() {}

    @Scheduled(cron = "0 0 0 1 1 *", zone = "UTC")
    void yearly() {}

    @Scheduled(fixedRate = 1000)
    void everySecond() {}

    @Scheduled(cron = "${job.cron}", zone = "UTC")
    void fromProperties() {}

    @Scheduled(fixedDelayString = "${job.delay}")
    void delayFromProperties() {}

    @Scheduled(fixedRate = 1000)
    @Scheduled(cron = "0 0 * * * *")
    void twice() {}

    @Scheduled(cron = "0 0 0 30 2 *", zone = "UTC")
    void february30() {}

    @Scheduled(cron = "#{@settings.cron}")
    void bySpel() {}
  }

  static class Later {
    @dev.idem.spring.Idempotent
    @Scheduled(fixedRate = 1000)
    public java.util.concurrent.CompletableFuture<Void> later() {
      return java.util.concurrent.CompletableFuture.completedFuture(null);
    }
  }
}
