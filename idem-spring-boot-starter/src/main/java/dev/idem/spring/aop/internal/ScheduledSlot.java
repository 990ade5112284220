package dev.idem.spring.aop.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.ClassUtils;

/**
 * The slot a run of a {@code @Scheduled} method stands for, which is its key when its
 * {@code @Idempotent} names none: the fire time its schedule meant, the same on every node. A cron
 * schedule's slot is its latest fire time up to now (a quarter second of slack for a scheduler that
 * fires a hair early); every node fires at that time by its own clock, so nodes whose clocks differ
 * agree as long as each fires within the slot. A fixed rate or delay counts from each node's start,
 * so its slots are the windows of that length since the epoch: the first node to fire in a window
 * runs it.
 */
public final class ScheduledSlot {

  private static final String SCHEDULED = "org.springframework.scheduling.annotation.Scheduled";
  // a scheduler may fire a moment before the wall clock reaches the fire time; under a quarter of
  // the shortest cron period (a second) so that a run a little late keeps its slot
  private static final Duration SLACK = Duration.ofMillis(250);

  private final @Nullable CronExpression cron;
  private final ZoneId zone;
  private final long periodMillis;
  private final String schedule;

  private ScheduledSlot(
      @Nullable CronExpression cron, ZoneId zone, long periodMillis, String schedule) {
    this.cron = cron;
    this.zone = zone;
    this.periodMillis = periodMillis;
    this.schedule = schedule;
  }

  /** Whether {@code method} carries {@code @Scheduled} (or several). */
  public static boolean isScheduled(Method method) {
    return ClassUtils.isPresent(SCHEDULED, ScheduledSlot.class.getClassLoader())
        && !AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class).isEmpty();
  }

  /**
   * The slots of {@code method}'s schedule.
   *
   * @param operation names the method in errors
   * @param placeholders resolves the {@code ${...}} of the schedule's strings
   * @throws IllegalStateException when the method has several schedules, or none a slot follows
   */
  public static ScheduledSlot of(
      String operation, Method method, UnaryOperator<String> placeholders) {
    Set<Scheduled> all =
        AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class);
    if (all.size() != 1) {
      throw new IllegalStateException(
          "@Idempotent on "
              + operation
              + " names no key, and its "
              + all.size()
              + " schedules give no one slot to key a run by; name a key expression");
    }
    Scheduled scheduled = all.iterator().next();
    String cron = placeholders.apply(scheduled.cron());
    if (!cron.isEmpty()) {
      if (Scheduled.CRON_DISABLED.equals(cron)) {
        return new ScheduledSlot(null, ZoneId.systemDefault(), 0, "disabled");
      }
      String zone = placeholders.apply(scheduled.zone());
      CronExpression expression;
      try {
        expression = CronExpression.parse(cron);
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(
            "@Idempotent on "
                + operation
                + " names no key, and its cron \""
                + cron
                + "\" cannot be read to key a run by its slot; name a key expression",
            e);
      }
      return new ScheduledSlot(
          expression,
          zone.isEmpty() ? ZoneId.systemDefault() : ZoneId.of(zone),
          0,
          "cron \"" + cron + "\"");
    }
    long period =
        period(scheduled.fixedRate(), scheduled.fixedRateString(), scheduled, placeholders);
    if (period <= 0) {
      period =
          period(scheduled.fixedDelay(), scheduled.fixedDelayString(), scheduled, placeholders);
    }
    if (period <= 0) {
      throw new IllegalStateException(
          "@Idempotent on "
              + operation
              + " names no key, and its @Scheduled has neither a cron nor a fixed rate or delay"
              + " to key a run by; name a key expression");
    }
    return new ScheduledSlot(null, ZoneId.systemDefault(), period, "every " + period + " ms");
  }

  /**
   * Whether the schedule ever fires by itself: not a disabled cron ({@code "-"}), nor one that
   * found no fire time in the last thirty years.
   */
  public boolean fires(Instant now) {
    return periodMillis > 0 || (cron != null && !slotAt(now).equals(now));
  }

  /** The schedule, as logs name it. */
  public String schedule() {
    return schedule;
  }

  /** The slot a run that starts at {@code now} stands for, as its key. */
  public String keyAt(Instant now) {
    return slotAt(now).toString();
  }

  /** The start of the slot a run that starts at {@code now} stands for. */
  public Instant slotAt(Instant now) {
    if (cron == null) {
      long millis = now.toEpochMilli();
      return Instant.ofEpochMilli(
          periodMillis == 0 ? millis : Math.floorDiv(millis, periodMillis) * periodMillis);
    }
    ZonedDateTime limit = now.plus(SLACK).atZone(zone);
    // back from the limit until a fire time lies between, then forward to the last of them
    Duration back = Duration.ofSeconds(1);
    ZonedDateTime from = limit.minus(back);
    ZonedDateTime fire = cron.next(from);
    while (fire == null || fire.isAfter(limit)) {
      back = back.multipliedBy(2);
      if (back.toDays() > 366 * 30) {
        // a schedule that never fired: its first run stands for the time it ran
        return now;
      }
      from = limit.minus(back);
      fire = cron.next(from);
    }
    for (ZonedDateTime later = cron.next(fire);
        later != null && !later.isAfter(limit);
        later = cron.next(later)) {
      fire = later;
    }
    return fire.toInstant();
  }

  private static long period(
      long value, String text, Scheduled scheduled, UnaryOperator<String> placeholders) {
    if (value > 0) {
      return scheduled.timeUnit().toMillis(value);
    }
    String resolved = placeholders.apply(text);
    if (resolved.isEmpty()) {
      return -1;
    }
    try {
      return scheduled.timeUnit().toMillis(Long.parseLong(resolved.trim()));
    } catch (NumberFormatException e) {
      return org.springframework.boot.convert.DurationStyle.detectAndParse(resolved).toMillis();
    }
  }
}
