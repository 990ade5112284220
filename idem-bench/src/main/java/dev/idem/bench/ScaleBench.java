package dev.idem.bench;

import static dev.idem.testsupport.Stages.now;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import dev.idem.testsupport.Machine;
import dev.idem.testsupport.servers.PrivatePostgres;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How the cost of the stores grows with what they hold: claim+complete and replay throughput and
 * latency with 10 thousand, 1 million and 10 million completed records already stored, on
 * PostgreSQL, MariaDB and Redis; the bytes one completed record takes for outcomes of 32 B, 1 KiB
 * and 64 KiB; and on the databases the purge rate, and claim latency while a purge deletes a
 * million expired rows. Writes the {@code scale} section of {@code docs/benchmarks.md} and its
 * charts.
 *
 * <p>Arguments: {@code --quick} (10 thousand and 100 thousand records, short windows); {@code
 * --doc=PATH}; {@code --only=NAME} for one store (with {@code --doc}); {@code --max=N} to stop at N
 * records (with {@code --doc}); {@code --mariadb-max=N} to fill MariaDB past {@link #MARIADB_MAX};
 * {@code --postgres-buffers=SIZE} for PostgreSQL's buffers ({@link #POSTGRES_BUFFERS}). PostgreSQL
 * is a private server the run starts (its buffers sized for ten million records, the table and its
 * indexes read into them after each fill) and stops; MariaDB at {@code IDEM_MARIADB_URL}, on tables
 * of the run's own ({@code bench_scale_*}, dropped at the end), with the shared server's buffers;
 * Redis is a private {@code redis-server} the run starts and stops. Ten million records take about
 * 4 GB in each database and in Redis' memory while they run.
 */
public final class ScaleBench {

  static final List<Long> SIZES = List.of(10_000L, 1_000_000L, 10_000_000L);
  static final List<Integer> OUTCOMES = List.of(32, 1024, 65536);
  static final int THREADS = 8;

  /** p99 at the largest size over p99 at the smallest may be at most this. */
  static final double P99_AIM = 1.5;

  /** A record may take at most its outcome and this many bytes more. */
  static final int BYTES_AIM = 150;

  /**
   * MariaDB's largest size unless {@code --mariadb-max=N} says otherwise. The shared server runs
   * with InnoDB's default 128 MB buffer pool; filling it with rows whose primary keys are random
   * digests took 200 s for the first million, each later row slower as the table outgrows the pool,
   * so ten million would take hours on this machine.
   */
  static final long MARIADB_MAX = 1_000_000;

  /**
   * PostgreSQL's {@code shared_buffers} unless {@code --postgres-buffers=SIZE} says otherwise: ten
   * million records with their indexes take about 3.7 GB, so they fit with room for the rows the
   * windows add.
   */
  static final String POSTGRES_BUFFERS = "6GB";

  /** Rows per purge statement, as the starter's purge job sends. */
  static final int PURGE_BATCH = 1000;

  /**
   * One store at one size.
   *
   * @param records completed records stored before the windows (filled ones; the windows add more)
   */
  record Growth(String store, long records, LoadDriver.Result claims, LoadDriver.Result replays) {}

  /** The bytes of one completed record with an outcome of {@code outcome} bytes. */
  record Bytes(String store, int outcome, double perRecord) {}

  /** A purge of {@code expired} rows under claim load, and the claims just before it. */
  record Purge(
      String store,
      long expired,
      long purged,
      double seconds,
      LoadDriver.Result before,
      LoadDriver.Result during) {}

  /** What one run measured. */
  record Results(List<Growth> growth, List<Bytes> bytes, List<Purge> purges) {}

  private ScaleBench() {}

  public static void main(String[] args) throws Exception {
    RunArgs run =
        RunArgs.parse(args, List.of("only", "max"), List.of("mariadb-max", "postgres-buffers"));
    boolean quick = run.quick();
    Path doc = run.doc();
    String only = run.option("only", null);
    long max = Long.parseLong(run.option("max", Long.toString(Long.MAX_VALUE)));
    long mariadbMax = Long.parseLong(run.option("mariadb-max", Long.toString(MARIADB_MAX)));
    String postgresBuffers = run.option("postgres-buffers", POSTGRES_BUFFERS);
    long largest = max;
    List<Long> sizes =
        (quick ? List.of(10_000L, 100_000L) : SIZES).stream().filter(s -> s <= largest).toList();
    long expired = quick ? 100_000 : 1_000_000;
    int byteRecords = quick ? 2_000 : 20_000;
    LoadDriver driver =
        quick
            ? new LoadDriver(THREADS, Duration.ofSeconds(1), Duration.ofSeconds(2))
            : new LoadDriver(THREADS, Duration.ofSeconds(3), Duration.ofSeconds(6));
    Machine machine = Machine.current();
    Instant started = Instant.now();
    Results results = new Results(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    Map<String, Callable<ScaleTarget>> targets = new LinkedHashMap<>();
    targets.put("PostgreSQL", () -> privatePostgres(postgresBuffers));
    targets.put("MariaDB", () -> new JdbcScaleTarget(BenchDatabase.mariadb(), THREADS + 2));
    targets.put("Redis", RedisScaleTarget::new);
    for (Map.Entry<String, Callable<ScaleTarget>> entry : targets.entrySet()) {
      if (only != null && !entry.getKey().equalsIgnoreCase(only)) {
        continue;
      }
      long storeMax = entry.getKey().equals("MariaDB") ? mariadbMax : Long.MAX_VALUE;
      List<Long> storeSizes = sizes.stream().filter(s -> s <= storeMax).toList();
      try (ScaleTarget target = entry.getValue().call()) {
        measure(target, storeSizes, expired, byteRecords, driver, results);
      }
    }
    ScaleSection section =
        new ScaleSection(
            results, machine, Machine.current().loadAverage(), started, driver, postgresBuffers);
    List<String> lines = section.lines(BenchCharts.folder(doc));
    run.publish("scale", lines);
  }

  // A server of the run's own, sized for the records it will hold, as a database in production is.
  private static ScaleTarget privatePostgres(String buffers) throws Exception {
    File log = Files.createTempFile("idem-scale-postgres-", ".log").toFile();
    PrivatePostgres server =
        PrivatePostgres.start(
            log,
            Map.of("shared_buffers", buffers, "max_wal_size", "16GB", "max_connections", "50"));
    try {
      server.createDatabase("bench");
      BenchDatabase database =
          BenchDatabase.postgresql().at(server.jdbcUrl("bench") + "?user=postgres");
      System.out.printf(
          Locale.ROOT, "PostgreSQL: a private server, shared_buffers %s; log %s%n", buffers, log);
      return new JdbcScaleTarget(database, THREADS + 2, server);
    } catch (Exception | Error e) {
      server.close();
      throw e;
    }
  }

  private static void measure(
      ScaleTarget target,
      List<Long> sizes,
      long expired,
      int byteRecords,
      LoadDriver driver,
      Results results)
      throws Exception {
    String name = target.name();
    long filled = 0;
    for (long size : sizes) {
      long start = System.nanoTime();
      target.fill("fill-", filled, size, false);
      System.out.printf(
          Locale.ROOT,
          "%s: filled to %,d in %.0f s%n",
          name,
          size,
          (System.nanoTime() - start) / 1e9);
      if (filled == 0) {
        // Discarded: the first windows would carry the JIT's warmup into the smallest size's p99.
        driver.run(claimAndComplete(target.store()));
        driver.run(replay(target.store(), size));
      }
      filled = size;
      LoadDriver.Result claims = driver.run(claimAndComplete(target.store()));
      LoadDriver.Result replays = driver.run(replay(target.store(), size));
      results.growth().add(new Growth(name, size, claims, replays));
      System.out.printf(
          Locale.ROOT,
          "%s at %,d: claim+complete %.0f/s p99 %.2f ms; replay %.0f/s p99 %.2f ms%n",
          name,
          size,
          claims.perSecond(),
          claims.p99Nanos() / 1e6,
          replays.perSecond(),
          replays.p99Nanos() / 1e6);
    }
    if (target.purge(1) >= 0) {
      results.purges().add(purge(target, expired, driver));
    }
    for (int outcome : OUTCOMES) {
      double bytes = target.bytesPerRecord(outcome, byteRecords);
      results.bytes().add(new Bytes(name, outcome, bytes));
      System.out.printf(Locale.ROOT, "%s: %d B outcome, %.0f B per record%n", name, outcome, bytes);
    }
  }

  // The claims just before the purge, then the same load with one thread purging in batches from
  // the start of the measured window on.
  private static Purge purge(ScaleTarget target, long expired, LoadDriver driver) throws Exception {
    target.fill("gone-", 0, expired, true);
    LoadDriver.Result before = driver.run(claimAndComplete(target.store()));
    AtomicLong purged = new AtomicLong();
    AtomicLong nanos = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread purger =
        new Thread(
            () -> {
              try {
                Thread.sleep(driver.warmup().toMillis());
                long start = System.nanoTime();
                int deleted;
                do {
                  deleted = target.purge(PURGE_BATCH);
                  purged.addAndGet(deleted);
                } while (deleted > 0);
                nanos.set(System.nanoTime() - start);
              } catch (Throwable e) {
                failure.set(e);
              }
            },
            "bench-purge");
    purger.start();
    LoadDriver.Result during = driver.run(claimAndComplete(target.store()));
    purger.join();
    if (failure.get() != null) {
      throw new IllegalStateException(target.name() + ": the purge failed", failure.get());
    }
    System.out.printf(
        Locale.ROOT,
        "%s: purged %,d in %.1f s; claim p99 %.2f ms before, %.2f ms during%n",
        target.name(),
        purged.get(),
        nanos.get() / 1e9,
        before.p99Nanos() / 1e6,
        during.p99Nanos() / 1e6);
    return new Purge(target.name(), expired, purged.get(), nanos.get() / 1e9, before, during);
  }

  private static LoadDriver.Operation claimAndComplete(IdempotencyStore store) {
    return () -> {
      IdempotencyKey key = IdempotencyKey.of(ScaleTarget.SCOPE, "new-" + UUID.randomUUID());
      ClaimResult result =
          now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, IdempotencyConfig.DEFAULT_LEASE)));
      if (!(result instanceof ClaimResult.Claimed claimed)) {
        throw new IllegalStateException("a new key was not claimed: " + result);
      }
      if (!now(
          store.complete(
              claimed.lease(),
              Outcome.success(ScaleTarget.RECEIPT),
              IdempotencyConfig.DEFAULT_RETENTION))) {
        throw new IllegalStateException("a fresh lease could not be completed: " + key);
      }
    };
  }

  // A filled key picked at random over the whole store, so that most reads miss the hot pages.
  private static LoadDriver.Operation replay(IdempotencyStore store, long size) {
    return () -> {
      IdempotencyKey key = ScaleTarget.key("fill-", ThreadLocalRandom.current().nextLong(size));
      ClaimResult result =
          now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, IdempotencyConfig.DEFAULT_LEASE)));
      if (!(result instanceof ClaimResult.Completed)) {
        throw new IllegalStateException("a filled key did not replay: " + key + " " + result);
      }
    };
  }
}
