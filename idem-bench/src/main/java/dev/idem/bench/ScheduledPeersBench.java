package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.ResultCodec;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.JdbcSchema;
import dev.idem.jdbc.JdbcStoreConfig;
import dev.idem.testsupport.Machine;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicIntegerArray;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One scheduled job on three nodes whose clocks differ, guarded by Idem's slot key and by
 * ShedLock's JDBC provider on the same PostgreSQL: how often each slot ran (a slot run twice is a
 * doubled effect; one not run is a missed one) and what a node's decision to run or skip costs.
 * Writes the {@code scheduled-peers} section of {@code docs/benchmarks.md}.
 *
 * <p>Each node fires at the slot's time by its own clock, that is earlier in real time when its
 * clock is ahead, and runs the job (5 ms of work) when its guard lets it. Idem keys the run by the
 * slot's nominal time (what {@code @Idempotent} on a {@code @Scheduled} method does); ShedLock
 * locks the job's name with {@code lockAtMostFor} 30 s and {@code lockAtLeastFor} 0 (its default)
 * or half the period (what its documentation advises against clocks that differ), using the
 * database's time.
 *
 * <p>Arguments: {@code --quick} for a short, rough run; {@code --doc=PATH} to write elsewhere.
 * PostgreSQL at {@code IDEM_POSTGRES_URL}; tables {@code bench_sched_*}, dropped at the end.
 */
public final class ScheduledPeersBench {

  static final Duration PERIOD = Duration.ofMillis(200);
  static final Duration WORK = Duration.ofMillis(5);
  static final Duration LEASE = Duration.ofSeconds(30);
  private static final String IDEM_TABLE = "bench_sched_idem";
  private static final String SHEDLOCK_TABLE = "bench_sched_shedlock";

  /** How far ahead each node's clock is. */
  record Skew(String title, long[] aheadMillis) {}

  static final List<Skew> SKEWS =
      List.of(
          new Skew("clocks 0, 40 and 90 ms ahead", new long[] {0, 40, 90}),
          new Skew("clocks 0, 60 and 150 ms ahead", new long[] {0, 60, 150}));

  /** A guard: runs {@code job} for {@code slot} on {@code node}, or decides not to. */
  interface Guard {
    void fire(int node, Instant slot, Instant nodeNow, Runnable job) throws Exception;
  }

  /** The figures of one guard under one skew. */
  record Row(
      String skew, String guard, int slots, int doubled, int missed, int maxRuns, double p50) {}

  private ScheduledPeersBench() {}

  public static void main(String[] args) throws Exception {
    RunArgs run = RunArgs.parse(args);
    int slots = run.quick() ? 10 : 60;
    Machine machine = Machine.current();
    Instant started = Instant.now();
    String url = BenchDatabase.postgresql().url();
    List<Row> rows = new ArrayList<>();
    try (HikariDataSource pool = BenchJdbc.pool(url, "scheduled", 6)) {
      JdbcStoreConfig config =
          JdbcStoreConfig.custom(JdbcDialect.postgresql()).table(IDEM_TABLE).build();
      JdbcSchema.createIfMissing(pool, config);
      BenchJdbc.execute(
          pool,
          "CREATE TABLE IF NOT EXISTS "
              + SHEDLOCK_TABLE
              + " (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMP NOT NULL,"
              + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
      try {
        Idempotency idem =
            Idempotency.builder(new JdbcIdempotencyStore(pool, config))
                .defaults(IdempotencyConfig.custom().lease(LEASE).rejectInProgress().build())
                .build();
        JdbcTemplateLockProvider shedlock =
            new JdbcTemplateLockProvider(
                JdbcTemplateLockProvider.Configuration.builder()
                    .withJdbcTemplate(new JdbcTemplate(pool))
                    .withTableName(SHEDLOCK_TABLE)
                    .usingDbTime()
                    .build());
        for (Skew skew : SKEWS) {
          String job = "job-" + skew.aheadMillis()[2];
          rows.add(measure(skew, "Idem, slot key (JDBC)", slots, idem(idem, job)));
          rows.add(
              measure(
                  skew,
                  "ShedLock, lockAtLeastFor 0",
                  slots,
                  shedlock(shedlock, job + "-0", Duration.ZERO)));
          rows.add(
              measure(
                  skew,
                  "ShedLock, lockAtLeastFor " + PERIOD.dividedBy(2).toMillis() + " ms",
                  slots,
                  shedlock(shedlock, job + "-half", PERIOD.dividedBy(2))));
        }
      } finally {
        BenchJdbc.execute(pool, "DROP TABLE IF EXISTS " + IDEM_TABLE);
        BenchJdbc.execute(pool, "DROP TABLE IF EXISTS " + SHEDLOCK_TABLE);
      }
    }
    run.publish("scheduled-peers", lines(rows, slots, machine, started));
  }

  static Guard idem(Idempotency idem, String job) {
    return (node, slot, nodeNow, work) -> {
      try {
        idem.call(IdempotencyKey.of(job, slot.toString()), Fingerprint.NONE)
            .codec(ResultCodec.none())
            .run(
                ctx -> {
                  work.run();
                  return null;
                });
      } catch (RequestInProgressException running) {
        // another node runs this slot: skip it, as the starter does
      }
    };
  }

  static Guard shedlock(JdbcTemplateLockProvider provider, String job, Duration atLeast) {
    return (node, slot, nodeNow, work) -> {
      Optional<SimpleLock> lock =
          provider.lock(new LockConfiguration(nodeNow, job, LEASE, atLeast));
      if (lock.isPresent()) {
        try {
          work.run();
        } finally {
          lock.get().unlock();
        }
      }
    };
  }

  /** Three nodes fire {@code slots} slots each through {@code guard}; counts the runs per slot. */
  static Row measure(Skew skew, String name, int slots, Guard guard) throws InterruptedException {
    AtomicIntegerArray runs = new AtomicIntegerArray(slots);
    long[][] decisions = new long[skew.aheadMillis().length][slots];
    // the first slot starts a little after now, on a period boundary of the (real) clock
    long periodMillis = PERIOD.toMillis();
    long first = (System.currentTimeMillis() / periodMillis + 3) * periodMillis;
    long realToNano = System.nanoTime() - System.currentTimeMillis() * 1_000_000L;
    List<Thread> nodes = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int n = 0; n < skew.aheadMillis().length; n++) {
      int node = n;
      long ahead = skew.aheadMillis()[n];
      Thread thread =
          new Thread(
              () -> {
                try {
                  for (int s = 0; s < slots; s++) {
                    long slotMillis = first + s * periodMillis;
                    // a clock ahead by `ahead` reads the slot's time that much earlier
                    long fireNanos = (slotMillis - ahead) * 1_000_000L + realToNano;
                    sleepUntil(fireNanos);
                    int index = s;
                    Instant nodeNow = Instant.ofEpochMilli(System.currentTimeMillis() + ahead);
                    long begin = System.nanoTime();
                    long[] decided = {0};
                    guard.fire(
                        node,
                        Instant.ofEpochMilli(slotMillis),
                        nodeNow,
                        () -> {
                          decided[0] = System.nanoTime();
                          runs.incrementAndGet(index);
                          sleepUntil(System.nanoTime() + WORK.toNanos());
                        });
                    long end = decided[0] != 0 ? decided[0] : System.nanoTime();
                    decisions[node][s] = end - begin;
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "node-" + n);
      thread.start();
      nodes.add(thread);
    }
    for (Thread node : nodes) {
      node.join();
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(name + " failed", failures.get(0));
    }
    int doubled = 0;
    int missed = 0;
    int max = 0;
    for (int s = 0; s < slots; s++) {
      int r = runs.get(s);
      doubled += r > 1 ? 1 : 0;
      missed += r == 0 ? 1 : 0;
      max = Math.max(max, r);
    }
    long[] all = Arrays.stream(decisions).flatMapToLong(Arrays::stream).sorted().toArray();
    double p50 = all[all.length / 2] / 1e6;
    return new Row(skew.title(), name, slots, doubled, missed, max, p50);
  }

  // A scheduler's thread waits for its time; sleeping to within a millisecond, then spinning,
  // keeps the nodes' fire times as far apart as their clocks say.
  private static void sleepUntil(long nanos) {
    long left;
    while ((left = nanos - System.nanoTime()) > 0) {
      if (left > 2_000_000L) {
        try {
          Thread.sleep((left - 1_000_000L) / 1_000_000L);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      } else {
        Thread.onSpinWait();
      }
    }
  }

  static List<String> lines(List<Row> rows, int slots, Machine machine, Instant started) {
    List<String> lines = new ArrayList<>();
    lines.add("## A scheduled job on three nodes: Idem's slot key and ShedLock");
    lines.add("");
    lines.add(
        "Generated by `ScheduledPeersBench` on "
            + started
            + ": one job every "
            + PERIOD.toMillis()
            + " ms, "
            + slots
            + " slots, three nodes firing at the slot's time by their own clocks, "
            + WORK.toMillis()
            + " ms of work per run, on the same PostgreSQL. A slot run twice is a doubled effect,"
            + " one not run a missed one; the decision is the time a node's guard takes to run the"
            + " job or skip it, work left out.");
    lines.add("");
    lines.addAll(machine.markdown());
    lines.add("");
    lines.add(
        "| clocks | guard | slots | run twice or more | not run | most runs of a slot | decision p50 (ms) |");
    lines.add("|---|---|---:|---:|---:|---:|---:|");
    for (Row row : rows) {
      lines.add(
          String.format(
              Locale.ROOT,
              "| %s | %s | %d | %d | %d | %d | %.2f |",
              row.skew(),
              row.guard(),
              row.slots(),
              row.doubled(),
              row.missed(),
              row.maxRuns(),
              row.p50()));
    }
    return lines;
  }
}
