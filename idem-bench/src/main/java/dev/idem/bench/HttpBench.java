package dev.idem.bench;

import dev.idem.testsupport.Machine;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

/**
 * Requests per second of one JSON POST endpoint in a Spring Boot application without the starter,
 * and with it on the in-memory store, on Redis and on PostgreSQL (first calls and replays), all in
 * one run with the load generator in the same JVM; writes the {@code http} section of {@code
 * docs/benchmarks.md}. The applications run side by side and the scenarios take turns round after
 * round, so that a change in the machine's load falls on all of them alike.
 *
 * <p>Arguments: {@code --quick} for a short, rough run; {@code --doc=PATH} to write elsewhere;
 * {@code --users=N} virtual users (default {@value #DEFAULT_USERS}); {@code --client=jdk} to load
 * through {@code java.net.http.HttpClient} instead of the minimal client (to compare their cost).
 * Redis is at {@code IDEM_REDIS_URI}, PostgreSQL at {@code IDEM_POSTGRES_URL} (loopback defaults);
 * the Redis variant writes only keys under a per-run prefix, the PostgreSQL variant only its own
 * table, and both are deleted at the end.
 */
public final class HttpBench {

  static final int DEFAULT_USERS = 16;

  static final String RAW_CLIENT = "a minimal HTTP/1.1 client on a plain socket";
  static final String JDK_CLIENT = "java.net.http.HttpClient, one per user";

  /** Keys completed before the rounds, which the replay scenarios send again. */
  static final int REPLAY_KEYS = 1000;

  /**
   * How long the run measures.
   *
   * @param rounds how many times each scenario is measured
   * @param firstWarmup how long each scenario runs, unmeasured, in a pass over all of them before
   *     the first round, while the JIT compiles the code of all the applications
   * @param warmup how long a scenario runs before each of its measured windows
   * @param window measured time per round
   */
  record Plan(int rounds, Duration firstWarmup, Duration warmup, Duration window) {

    static Plan full() {
      return new Plan(5, Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofSeconds(4));
    }

    static Plan quick() {
      return new Plan(2, Duration.ofMillis(1500), Duration.ofMillis(500), Duration.ofSeconds(1));
    }
  }

  /**
   * One measured scenario.
   *
   * @param name shown in the report
   * @param variant the application it sends to
   * @param replay true to send completed keys again, false to send a new key every time
   */
  record Scenario(String name, HttpVariant variant, boolean replay) {}

  private HttpBench() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    boolean quick = false;
    int users = DEFAULT_USERS;
    String client = "raw";
    String only = "";
    Path doc = Path.of(BenchReport.DOC);
    for (String arg : args) {
      if (arg.equals("--quick")) {
        quick = true;
      } else if (arg.startsWith("--doc=")) {
        doc = Path.of(arg.substring("--doc=".length()));
      } else if (arg.startsWith("--users=")) {
        users = Integer.parseInt(arg.substring("--users=".length()));
      } else if (arg.startsWith("--only=")) {
        only = arg.substring("--only=".length());
      } else if (arg.equals("--client=raw") || arg.equals("--client=jdk")) {
        client = arg.substring("--client=".length());
      } else {
        throw new IllegalArgumentException(
            "unknown argument "
                + arg
                + "; use --quick, --doc=PATH, --users=N, --client=raw|jdk,"
                + " --only=TEXT");
      }
    }
    Plan plan = quick ? Plan.quick() : Plan.full();
    Machine machine = Machine.current();
    Instant started = Instant.now();
    String run = UUID.randomUUID().toString().substring(0, 8);
    Map<HttpVariant.Kind, HttpVariant> variants = new EnumMap<>(HttpVariant.Kind.class);
    HttpReport report;
    try {
      for (HttpVariant.Kind kind : HttpVariant.Kind.values()) {
        System.out.println("starting " + kind.label);
        variants.put(kind, HttpVariant.start(kind, run, users, redisUri(), postgresUrl()));
      }
      List<String> replayKeys =
          IntStream.range(0, REPLAY_KEYS).mapToObj(i -> "replay-" + run + "-" + i).toList();
      for (HttpVariant variant : variants.values()) {
        if (variant.protects()) {
          variant.complete(replayKeys);
        }
      }
      String wanted = only;
      List<Scenario> scenarios =
          scenarios(variants).stream()
              .filter(s -> s.name().equals(HttpReport.BASELINE) || s.name().contains(wanted))
              .toList();
      HttpConnection.Factory connections =
          client.equals("jdk") ? JdkHttpConnection::new : RawHttpConnection::new;
      HttpLoadDriver driver =
          new HttpLoadDriver(
              users, connections, HttpBenchController.PATH, HttpBenchController.BODY);
      List<List<HttpLoadDriver.Result>> rounds = measure(driver, scenarios, plan, run, replayKeys);
      report =
          new HttpReport(
              scenarios.stream().map(Scenario::name).toList(),
              rounds,
              machine,
              Machine.current().loadAverage(),
              started,
              quick,
              plan,
              users,
              client.equals("jdk") ? JDK_CLIENT : RAW_CLIENT,
              only,
              stores(variants));
    } finally {
      for (HttpVariant variant : variants.values()) {
        variant.close();
      }
    }
    new GeneratedSection(doc, "http", BenchReport.DOC_INTRO)
        .write(String.join("\n", report.section()));
    System.out.println();
    report.table().forEach(System.out::println);
    System.out.println();
    report.aims().forEach(System.out::println);
    System.out.println("Written to " + doc);
  }

  private static List<Scenario> scenarios(Map<HttpVariant.Kind, HttpVariant> variants) {
    List<Scenario> scenarios = new ArrayList<>();
    for (HttpVariant variant : variants.values()) {
      if (variant.kind() == HttpVariant.Kind.NONE) {
        scenarios.add(new Scenario(HttpReport.BASELINE, variant, false));
        continue;
      }
      if (!variant.protects()) {
        scenarios.add(new Scenario(variant.kind().label + ", first call", variant, false));
        continue;
      }
      scenarios.add(new Scenario(variant.kind().label + ", first call", variant, false));
      // consolidated flushes change how commands reach Redis, not how a replay is answered
      if (variant.kind() != HttpVariant.Kind.REDIS_CONSOLIDATED) {
        scenarios.add(new Scenario(variant.kind().label + ", replay", variant, true));
      }
    }
    return scenarios;
  }

  /**
   * Measures every scenario once per round; round {@code r} starts at scenario {@code r}, so that
   * no scenario always runs right after the same one. The result holds each round's results in the
   * order of {@code scenarios}.
   */
  private static List<List<HttpLoadDriver.Result>> measure(
      HttpLoadDriver driver, List<Scenario> scenarios, Plan plan, String run, List<String> replay)
      throws InterruptedException {
    for (Scenario scenario : scenarios) {
      System.out.println("warming up " + scenario.name());
      driver.run(
          scenario.name(),
          scenario.variant().port(),
          requests(scenario, run, replay),
          scenario.variant()::handlerRuns,
          plan.firstWarmup(),
          Duration.ofMillis(100));
    }
    List<List<HttpLoadDriver.Result>> rounds = new ArrayList<>();
    for (int round = 0; round < plan.rounds(); round++) {
      HttpLoadDriver.Result[] results = new HttpLoadDriver.Result[scenarios.size()];
      for (int turn = 0; turn < scenarios.size(); turn++) {
        int index = (round + turn) % scenarios.size();
        Scenario scenario = scenarios.get(index);
        String load = Machine.current().loadAverage();
        HttpLoadDriver.Result result =
            driver.run(
                scenario.name(),
                scenario.variant().port(),
                requests(scenario, run, replay),
                scenario.variant()::handlerRuns,
                plan.warmup(),
                plan.window());
        System.out.printf(
            "round %d, %s: %.0f req/s, p99 %.2f ms, handler runs/req %.2f, CPU µs/req client %.1f"
                + " server %.1f (load before: %s)%n",
            round + 1,
            scenario.name(),
            result.perSecond(),
            result.millisAt(99),
            result.handlerRunsPerRequest(),
            result.clientMicrosPerRequest(),
            result.serverMicrosPerRequest(),
            load);
        results[index] = result;
      }
      rounds.add(List.of(results));
    }
    return rounds;
  }

  private static HttpLoadDriver.Requests requests(
      Scenario scenario, String run, List<String> replay) {
    boolean replayed = scenario.replay() && scenario.variant().protects();
    String prefix = run + "-";
    return new HttpLoadDriver.Requests() {
      @Override
      public String key(int user, long seq) {
        if (scenario.replay()) {
          return replay.get((int) ((user * 7919L + seq) % replay.size()));
        }
        return prefix + user + "-" + seq;
      }

      @Override
      public boolean replayed() {
        return replayed;
      }
    };
  }

  private static List<String> stores(Map<HttpVariant.Kind, HttpVariant> variants) {
    return variants.values().stream().map(v -> v.kind().label + ": " + v.storeClass()).toList();
  }

  private static String redisUri() {
    return env("IDEM_REDIS_URI", RedisRig.DEFAULT_URI);
  }

  private static String postgresUrl() {
    return env("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
