package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.testsupport.Machine;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Throughput of the JDBC store on PostgreSQL and MariaDB with {@value JdbcStoreSettings#THREADS}
 * threads on a pool of as many connections, beside a raw insert-if-absent of random keys on the
 * same pool in the same run; writes the {@code jdbc-store} section of {@code docs/benchmarks.md}.
 *
 * <p>After a warmup of every scenario, the scenarios take turns in rounds, each with emptied tables
 * and a short measured window, so that a change in the machine's load during the run falls on all
 * of them alike rather than on whichever ran then. Last, each scenario runs single operations one
 * after another while the pool counts statements, commits and connections per operation.
 *
 * <p>Arguments: {@code --quick} for a short, rough run; {@code --doc=PATH} to write elsewhere.
 */
public final class JdbcStoreBench {

  /** One scenario: its name and the operation every thread repeats. */
  private record Scenario(String name, LoadDriver.Operation operation) {}

  private final JdbcStoreSettings settings;

  private JdbcStoreBench(JdbcStoreSettings settings) {
    this.settings = settings;
  }

  public static void main(String[] args) throws Exception {
    RunArgs run = RunArgs.parse(args);
    boolean quick = run.quick();
    Path doc = run.doc();
    Machine machine = Machine.current();
    Instant started = Instant.now();
    JdbcStoreSettings settings = quick ? JdbcStoreSettings.quickRun() : JdbcStoreSettings.full();
    JdbcStoreBench bench = new JdbcStoreBench(settings);
    List<JdbcStoreTable> tables = new ArrayList<>();
    for (BenchDatabase database : List.of(BenchDatabase.postgresql(), BenchDatabase.mariadb())) {
      tables.add(bench.run(database));
    }
    String loadAfter = Machine.current().loadAverage();
    JdbcStoreSection section = new JdbcStoreSection(tables, machine, loadAfter, started, settings);
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
    config.setMaximumPoolSize(JdbcStoreSettings.THREADS);
    config.setMinimumIdle(JdbcStoreSettings.THREADS);
    config.setPoolName("idem-bench-" + database.name());
    try (HikariDataSource pool = new HikariDataSource(config)) {
      CountingDataSource counting = new CountingDataSource(pool);
      try (StoreScenarios s = new StoreScenarios(database, counting)) {
        s.createTables();
        s.completeReplayKeys(settings.replayKeys(), JdbcStoreSettings.THREADS);
        List<Scenario> scenarios = new ArrayList<>();
        scenarios.add(new Scenario(JdbcStoreTable.RAW, s::rawInsert));
        scenarios.add(new Scenario(JdbcStoreTable.MINIMAL_PAIR, s::minimalPair));
        scenarios.add(new Scenario(JdbcStoreTable.CLAIM_COMPLETE, s::claimAndComplete));
        scenarios.add(
            new Scenario(JdbcStoreTable.CLAIM_COMPLETE_CAPPED, s::claimAndCompleteCapped));
        if (s.hasReadCommittedClaims()) {
          scenarios.add(
              new Scenario(
                  JdbcStoreTable.CLAIM_COMPLETE_READ_COMMITTED, s::claimAndCompleteReadCommitted));
        }
        scenarios.add(new Scenario(JdbcStoreTable.REPLAY, s::replay));
        scenarios.add(new Scenario(JdbcStoreTable.BUSINESS, s::businessTransaction));
        scenarios.add(
            new Scenario(JdbcStoreTable.BUSINESS_JOINED, s::businessTransactionWithIdempotency));
        for (Scenario scenario : scenarios) {
          System.out.printf("%s: warming up %s%n", database.name(), scenario.name());
          s.truncateWrittenTables();
          settings.warmup().run(scenario.operation());
        }
        Map<String, List<LoadDriver.Result>> windows = new LinkedHashMap<>();
        for (int r = 1; r <= settings.rounds(); r++) {
          StringBuilder line = new StringBuilder(database.name() + ": round " + r + ":");
          for (Scenario scenario : scenarios) {
            s.truncateWrittenTables();
            LoadDriver.Result result = settings.round().run(scenario.operation());
            windows.computeIfAbsent(scenario.name(), n -> new ArrayList<>()).add(result);
            line.append(String.format(Locale.ROOT, " %.0f", result.perSecond()));
          }
          System.out.println(line + " ops/s");
        }
        List<JdbcStoreTable.Row> rows = new ArrayList<>();
        for (Scenario scenario : scenarios) {
          s.truncateWrittenTables();
          rows.add(row(scenario, windows.get(scenario.name()), counting));
        }
        return new JdbcStoreTable(database.name(), s.serverVersion(), rows);
      }
    }
  }

  // Counted on their own, after the load has stopped, so that only these operations are seen.
  private JdbcStoreTable.Row row(
      Scenario scenario, List<LoadDriver.Result> windows, CountingDataSource counting)
      throws Exception {
    CountingDataSource.Counts before = counting.snapshot();
    for (int i = 0; i < settings.countedOps(); i++) {
      scenario.operation().run();
    }
    CountingDataSource.Counts counted = counting.snapshot().minus(before);
    List<Double> rates = windows.stream().map(LoadDriver.Result::perSecond).toList();
    return new JdbcStoreTable.Row(
        scenario.name(), LoadDriver.Result.combine(windows), rates, counted, settings.countedOps());
  }
}
