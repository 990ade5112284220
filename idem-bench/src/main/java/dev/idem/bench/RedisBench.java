package dev.idem.bench;

import dev.idem.testsupport.Machine;
import io.lettuce.core.resource.EpollProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Measures Idem on Redis against the physical limit and against Redisson, in one run on one Redis,
 * and writes the {@code redis} section of {@code docs/benchmarks.md}: claim+complete pairs against
 * raw {@code SET NX PX}, replays against raw {@code GET}, and Idem's lock against Redisson's {@code
 * RLock} and a minimal two-round-trip lock. Every scenario runs with the same number of threads in
 * a closed loop; see {@link RedisLoadDriver}.
 *
 * <p>Arguments: {@code --quick} for a short, rough run; {@code --doc=PATH} to write elsewhere;
 * {@code --threads=N} (default {@value #DEFAULT_THREADS}); {@code --only=lock} to run only the
 * three lock scenarios and their aims, {@code --only=cap} only the minimal pair and Idem's pair
 * with and without a cap (a report written from such a run lacks the other rows). Redis is at
 * {@code IDEM_REDIS_URI} (default {@value RedisRig#DEFAULT_URI}); only keys under a per-run prefix
 * are written, and they are deleted at the end.
 */
public final class RedisBench {

  static final String RAW_SET = "raw SET NX PX";
  static final String MINIMAL_PAIR = "minimal owner-checked pair";
  static final String PAIR = "Idem claim+complete";
  static final String PAIR_CAPPED = "Idem claim+complete, capped scope";
  static final String RAW_GET = "raw GET";
  static final String REPLAY = "Idem replay";
  static final String CACHED_REPLAY = "Idem replay, local replay cache";
  static final String ENGINE_FIRST = "engine execute, new key";
  static final String ENGINE_REPLAY = "engine execute, replay";
  static final String ENGINE_CACHED_REPLAY = "engine execute, replay, local replay cache";
  static final String MINIMAL_LOCK = "minimal lock";
  static final String IDEM_LOCK = "Idem lock";
  static final String REDISSON_LOCK = "Redisson RLock";

  static final int DEFAULT_THREADS = 8;

  private static final List<ThroughputTable.Aim> AIMS =
      List.of(
          new ThroughputTable.Aim(PAIR, RAW_SET, 0.45, true),
          ThroughputTable.Aim.comparison(MINIMAL_PAIR, RAW_SET, true),
          new ThroughputTable.Aim(PAIR, MINIMAL_PAIR, 0.95, true),
          new ThroughputTable.Aim(PAIR_CAPPED, PAIR, 0.90, true),
          new ThroughputTable.Aim(REPLAY, RAW_GET, 0.95, true),
          new ThroughputTable.Aim(CACHED_REPLAY, RAW_GET, 5.0, false),
          new ThroughputTable.Aim(ENGINE_CACHED_REPLAY, RAW_GET, 5.0, false),
          new ThroughputTable.Aim(IDEM_LOCK, REDISSON_LOCK, 3.0, false),
          ThroughputTable.Aim.comparison(MINIMAL_LOCK, REDISSON_LOCK, false),
          new ThroughputTable.Aim(IDEM_LOCK, MINIMAL_LOCK, 0.90, true));

  private RedisBench() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    boolean quick = false;
    String only = "";
    int threads = DEFAULT_THREADS;
    Path doc = Path.of(BenchReport.DOC);
    boolean docGiven = false;
    for (String arg : args) {
      if (arg.equals("--quick")) {
        quick = true;
      } else if (arg.startsWith("--doc=")) {
        doc = Path.of(arg.substring("--doc=".length()));
        docGiven = true;
      } else if (arg.equals("--only=lock") || arg.equals("--only=cap")) {
        only = arg.substring("--only=".length());
      } else if (arg.startsWith("--threads=")) {
        threads = Integer.parseInt(arg.substring("--threads=".length()));
      } else {
        throw new IllegalArgumentException(
            "unknown argument "
                + arg
                + "; use --quick, --doc=PATH, --threads=N, --only=lock, --only=cap");
      }
    }
    if (!only.isEmpty() && !docGiven) {
      // A report of some rows alone must not replace the full section of the committed page.
      throw new IllegalArgumentException("--only needs --doc=PATH");
    }
    RunPlan plan = quick ? RunPlan.quick(threads) : RunPlan.full(threads);
    Machine machine = Machine.current();
    Instant started = Instant.now();
    ThroughputTable table;
    RedisReportText text;
    try (RedisRig rig = RedisRig.fromEnvironment()) {
      RedisLoadDriver driver = new RedisLoadDriver(threads, rig.commandStats());
      table = run(rig, driver, plan, only);
      text =
          new RedisReportText(
              machine,
              Machine.current().loadAverage(),
              started,
              quick,
              plan,
              rig.serverVersion(),
              versions(),
              LockScenarios.redissonSettings(rig.uri()));
    }
    new GeneratedSection(doc, "redis", BenchReport.DOC_INTRO)
        .write(String.join("\n", text.section(table)));
    System.out.println();
    table.markdown().forEach(System.out::println);
    System.out.println();
    table.aimsMarkdown().forEach(System.out::println);
    System.out.println(table.summary());
    table.commandsMarkdown().forEach(System.out::println);
    System.out.println("Written to " + doc);
  }

  // Raw baselines run just before the Idem scenarios they are compared with, so that a change in
  // the machine's load between them is as short as it can be.
  private static ThroughputTable run(
      RedisRig rig, RedisLoadDriver driver, RunPlan plan, String only) throws InterruptedException {
    try (RedisStoreScenarios store = new RedisStoreScenarios(rig);
        LockScenarios locks = new LockScenarios(rig)) {
      Map<String, RedisLoadDriver.Op> ops = new LinkedHashMap<>();
      if (only.equals("cap")) {
        ops.put(MINIMAL_PAIR, store.minimalPair());
        ops.put(PAIR, store.claimComplete());
        ops.put(PAIR_CAPPED, store.claimCompleteCapped());
      }
      if (only.isEmpty()) {
        ops.put(RAW_SET, store.rawSet());
        ops.put(MINIMAL_PAIR, store.minimalPair());
        ops.put(PAIR, store.claimComplete());
        ops.put(PAIR_CAPPED, store.claimCompleteCapped());
        ops.put(RAW_GET, store.rawGet());
        ops.put(REPLAY, store.replay());
        ops.put(CACHED_REPLAY, store.cachedReplay());
        ops.put(ENGINE_FIRST, store.engineFirstCall());
        ops.put(ENGINE_REPLAY, store.engineReplay());
        ops.put(ENGINE_CACHED_REPLAY, store.engineCachedReplay());
      }
      if (!only.equals("cap")) {
        ops.put(MINIMAL_LOCK, locks.minimal());
        ops.put(IDEM_LOCK, locks.idem());
        ops.put(REDISSON_LOCK, locks.redisson());
      }
      List<List<ThroughputTable.Row>> rounds = new ArrayList<>();
      for (int round = 0; round < plan.rounds(); round++) {
        List<ThroughputTable.Row> rows = new ArrayList<>();
        for (Map.Entry<String, RedisLoadDriver.Op> op : ops.entrySet()) {
          rows.add(measure(driver, op.getKey(), op.getValue(), plan, round));
          for (String part : RedisStoreScenarios.FRESH_KEYS) {
            rig.deleteKeysAndWait(part);
          }
        }
        rounds.add(rows);
      }
      List<ThroughputTable.Aim> aims =
          AIMS.stream()
              .filter(aim -> ops.containsKey(aim.subject()) && ops.containsKey(aim.baseline()))
              .toList();
      return ThroughputTable.of(rounds, aims);
    }
  }

  private static ThroughputTable.Row measure(
      RedisLoadDriver driver, String name, RedisLoadDriver.Op op, RunPlan plan, int round)
      throws InterruptedException {
    String load = Machine.current().loadAverage();
    RedisLoadDriver.Result result = driver.run(name, op, plan.warmupBefore(round), plan.window());
    System.out.printf(
        "round %d, %s: %.0f ops/s, p99 %.2f ms, %.2f commands per op (load before: %s)%n",
        round + 1, name, result.perSecond(), result.millisAt(99), result.commandsPerOp(), load);
    return new ThroughputTable.Row(name, result);
  }

  /** Versions of the client libraries, read from the Maven metadata the jars carry. */
  static String versions() {
    return "Lettuce "
        + version("io.lettuce", "lettuce-core")
        + (EpollProvider.isAvailable() ? " over Netty's epoll transport" : " over Java NIO")
        + ", Redisson "
        + version("org.redisson", "redisson")
        + ", HdrHistogram "
        + version("org.hdrhistogram", "HdrHistogram");
  }

  static String version(String group, String artifact) {
    String path = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
    try (InputStream in = RedisBench.class.getResourceAsStream(path)) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
