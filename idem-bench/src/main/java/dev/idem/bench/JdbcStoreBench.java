package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Throughput of the JDBC store on PostgreSQL and MariaDB with {@value #THREADS} threads on a pool
 * of {@value #THREADS} connections, beside a raw insert-if-absent of random keys on the same pool
 * in the same run; writes the {@code jdbc-store} section of {@code docs/benchmarks.md}.
 *
 * <p>Each scenario gets empty tables, a warmup and a measured window under load, then a counted run
 * of single operations one after another, in which the pool counts statements, commits and
 * connections per operation. The raw insert runs first and again last, so that a drift in the
 * machine's speed during the run shows, and its mean is the baseline.
 *
 * <p>Arguments: {@code --quick} for a short, rough run; {@code --doc=PATH} to write elsewhere.
 */
public final class JdbcStoreBench {

  static final int THREADS = 8;

  private final LoadDriver driver;
  private final int replayKeys;
  private final int countedOps;

  private JdbcStoreBench(boolean quick) {
    this.driver =
        quick
            ? new LoadDriver(THREADS, Duration.ofSeconds(1), Duration.ofSeconds(2))
            : new LoadDriver(THREADS, Duration.ofSeconds(5), Duration.ofSeconds(10));
    this.replayKeys = quick ? 1_000 : 10_000;
    this.countedOps = quick ? 200 : 1_000;
  }

  public static void main(String[] args) throws Exception {
    boolean quick = List.of(args).contains("--quick");
    Path doc = Path.of(BenchReport.DOC);
    for (String arg : args) {
      if (arg.startsWith("--doc=")) {
        doc = Path.of(arg.substring("--doc=".length()));
      } else if (!arg.equals("--quick")) {
        throw new IllegalArgumentException("unknown argument " + arg + "; use --quick, --doc=PATH");
      }
    }
    Machine machine = Machine.current();
    Instant started = Instant.now();
    JdbcStoreBench bench = new JdbcStoreBench(quick);
    List<JdbcStoreTable> tables = new ArrayList<>();
    for (BenchDatabase database : List.of(BenchDatabase.postgresql(), BenchDatabase.mariadb())) {
      tables.add(bench.run(database));
    }
    String loadAfter = Machine.current().loadAverage();
    JdbcStoreSection section =
        new JdbcStoreSection(tables, machine, loadAfter, started, quick, bench.driver);
    new GeneratedSection(doc, "jdbc-store", BenchReport.DOC_INTRO)
        .write(String.join("\n", section.lines()));
    System.out.println();
    for (JdbcStoreTable table : tables) {
      System.out.println(table.database());
      table.markdown().forEach(System.out::println);
      table.verdicts().forEach(System.out::println);
      System.out.println();
    }
    System.out.println("Written to " + doc);
  }

  private JdbcStoreTable run(BenchDatabase database) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(database.url());
    config.setMaximumPoolSize(THREADS);
    config.setMinimumIdle(THREADS);
    config.setPoolName("idem-bench-" + database.name());
    List<JdbcStoreTable.Row> rows = new ArrayList<>();
    try (HikariDataSource pool = new HikariDataSource(config)) {
      CountingDataSource counting = new CountingDataSource(pool);
      try (StoreScenarios s = new StoreScenarios(database, counting)) {
        s.createTables();
        rows.add(measure(database, JdbcStoreTable.RAW_FIRST, s, counting, s::rawInsert));
        rows.add(
            measure(database, JdbcStoreTable.CLAIM_COMPLETE, s, counting, s::claimAndComplete));
        s.truncateAll();
        s.completeReplayKeys(replayKeys, THREADS);
        rows.add(measureOnly(database, JdbcStoreTable.REPLAY, counting, s::replay));
        rows.add(measure(database, JdbcStoreTable.BUSINESS, s, counting, s::businessTransaction));
        rows.add(
            measure(
                database,
                JdbcStoreTable.BUSINESS_JOINED,
                s,
                counting,
                s::businessTransactionWithIdempotency));
        rows.add(measure(database, JdbcStoreTable.RAW_LAST, s, counting, s::rawInsert));
      }
    }
    return new JdbcStoreTable(database.name(), rows);
  }

  private JdbcStoreTable.Row measure(
      BenchDatabase database,
      String scenario,
      StoreScenarios scenarios,
      CountingDataSource counting,
      LoadDriver.Operation operation)
      throws Exception {
    scenarios.truncateAll();
    return measureOnly(database, scenario, counting, operation);
  }

  private JdbcStoreTable.Row measureOnly(
      BenchDatabase database,
      String scenario,
      CountingDataSource counting,
      LoadDriver.Operation operation)
      throws Exception {
    System.out.printf("%s: %s ...%n", database.name(), scenario);
    LoadDriver.Result load = driver.run(operation);
    // Counted on their own, after the load has stopped, so that only these operations are seen.
    CountingDataSource.Counts before = counting.snapshot();
    for (int i = 0; i < countedOps; i++) {
      operation.run();
    }
    CountingDataSource.Counts counted = counting.snapshot().minus(before);
    System.out.printf(
        "  %.0f ops/s, p50 %.2f ms, p99 %.2f ms; in %d counted ops: %s%n",
        load.perSecond(), load.p50Nanos() / 1e6, load.p99Nanos() / 1e6, countedOps, counted);
    return new JdbcStoreTable.Row(scenario, load, counted, countedOps);
  }
}
