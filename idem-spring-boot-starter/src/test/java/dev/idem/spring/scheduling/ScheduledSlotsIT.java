package dev.idem.spring.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.RecordState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code @Idempotent} on {@code @Scheduled} methods, across nodes (application contexts in this
 * JVM) that share a real store: each slot of a schedule runs once across the nodes, and a slot
 * whose node died mid-run is taken over by another node after the lease, with a greater fence.
 */
class ScheduledSlotsIT {

  @Nested
  class OnRedis extends Suite {
    OnRedis() {
      super(Map.of("test.redis", "true"));
    }
  }

  @Nested
  class OnPostgres extends Suite {
    OnPostgres() {
      super(
          Map.of(
              "test.postgres", "true",
              "idem.jdbc.initialize-schema", "always",
              "idem.jdbc.table", "idem_scheduled_it"));
    }
  }

  abstract static class Suite {
    private final Map<String, Object> store;
    private final List<ConfigurableApplicationContext> nodes = new ArrayList<>();

    Suite(Map<String, Object> store) {
      this.store = store;
    }

    @AfterEach
    void stopNodes() {
      ScheduledJobs.STALLED.values().forEach(CountDownLatch::countDown);
      nodes.forEach(ConfigurableApplicationContext::close);
      ScheduledJobs.STALLED.clear();
      ScheduledJobs.TICKS.clear();
      ScheduledJobs.SETTLES.clear();
      ScheduledJobs.REPORTS.clear();
    }

    private ConfigurableApplicationContext node(String name, Map<String, Object> more) {
      Map<String, Object> properties = new HashMap<>(store);
      properties.putAll(more);
      properties.put("test.node", name);
      ConfigurableApplicationContext node = ScheduledJobsApplication.start(properties);
      nodes.add(node);
      return node;
    }

    @Test
    void threeNodesFiringOneScheduleRunEachSlotOnce() {
      for (String name : List.of("a", "b", "c")) {
        node(name, Map.of("test.tick-rate", "100"));
      }

      // each node fires every 100 ms at its own phase: every 100 ms window is fired three times
      await().atMost(Duration.ofSeconds(30)).until(() -> ScheduledJobs.TICKS.size() >= 15);
      nodes.forEach(ConfigurableApplicationContext::close);

      List<String> slots =
          ScheduledJobs.TICKS.stream().map(tick -> tick.substring(0, tick.indexOf(' '))).toList();
      assertThat(slots).as("slots run, by node: %s", ScheduledJobs.TICKS).doesNotHaveDuplicates();
    }

    @Test
    void nodesThatStartAfterACronSlotRunItOnceWhenAskedAndNeverWhenNot() {
      long clock = unusedClock();
      Map<String, Object> runLatest =
          Map.of("test.clock", clock, "idem.scheduled.missed", "run-latest");
      node("a", Map.of("test.clock", clock));
      node("b", runLatest);
      await().atMost(Duration.ofSeconds(30)).until(() -> ScheduledJobs.REPORTS.size() == 1);
      node("c", runLatest);
      node("d", Map.of("test.clock", clock));

      // c's catch-up found b's run of the slot and replayed it; a and d skip the missed slot
      await().pollDelay(Duration.ofSeconds(1)).until(() -> true);
      Instant at = Instant.ofEpochMilli(clock);
      Instant three = Instant.parse(at.toString().substring(0, 10) + "T03:00:00Z");
      Instant latest = at.isBefore(three) ? three.minus(Duration.ofDays(1)) : three;
      assertThat(ScheduledJobs.REPORTS).containsExactly("ScheduledJobs.report/" + latest + " b");
    }

    // a clock fixed at a time no run used yet, so that each test's slots are its own
    private static long unusedClock() {
      return Instant.parse("2100-01-01T00:00:00Z").toEpochMilli()
          + ThreadLocalRandom.current().nextLong(1L << 40);
    }

    @Test
    void aSlotWhoseNodeDiedMidRunIsTakenOverByAnotherAfterTheLease() {
      // one slot on both nodes, whenever the test runs
      long clock = unusedClock();
      ScheduledJobs.STALLED.put("a", new CountDownLatch(1));
      ConfigurableApplicationContext a = node("a", Map.of("test.clock", clock));
      await().atMost(Duration.ofSeconds(30)).until(() -> ScheduledJobs.SETTLES.size() == 1);
      String slot = ScheduledJobs.SETTLES.peek().split(" ")[1];
      // the MDC holds "<scope>/<key>": the operation, then the slot
      assertThat(slot).startsWith("ScheduledJobs.settle/");
      IdempotencyKey key =
          IdempotencyKey.of("ScheduledJobs.settle", slot.substring(slot.lastIndexOf('/') + 1));
      IdempotencyRecord held = a.getBean(IdempotencyStore.class).find(key).orElseThrow();
      assertThat(held.state()).isEqualTo(RecordState.IN_PROGRESS);

      ConfigurableApplicationContext b = node("b", Map.of("test.clock", clock));
      // a dies: its lease is renewed no more; b, which found the slot running, looks again
      a.close();

      await().atMost(Duration.ofSeconds(30)).until(() -> !ScheduledJobs.endedSettles().isEmpty());
      assertThat(ScheduledJobs.endedSettles()).containsExactly("ended " + slot + " b");
      // the method records its end before the run is settled: wait for the record to say so
      IdempotencyStore store = b.getBean(IdempotencyStore.class);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> store.find(key).orElseThrow().state() == RecordState.COMPLETED);
      IdempotencyRecord done = store.find(key).orElseThrow();
      assertThat(done.fence()).isGreaterThan(held.fence());
    }
  }
}
