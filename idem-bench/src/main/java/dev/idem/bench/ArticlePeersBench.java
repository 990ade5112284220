package dev.idem.bench;

import dev.idem.testsupport.Machine;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The article's own code against Idem's equivalents, in one run on the same PostgreSQL and Redis:
 * the token service, the Redisson-lock pay flow and the version-retry deduction (see {@code
 * dev.idem.bench.article}). For each pair it measures throughput, p99 latency, and the calls that
 * were doubled (work run twice for one token, order or deduction) or failed (work that should have
 * run once and never did); writes the {@code article-peers} section of {@code docs/benchmarks.md}.
 *
 * <p>Arguments: {@code --quick} for a short, rough run; {@code --doc=PATH} to write elsewhere.
 * PostgreSQL at {@code IDEM_POSTGRES_URL}, Redis at {@code IDEM_REDIS_URI}; the run writes only its
 * own tables ({@code bench_article_*}, dropped at the end) and keys under its own prefix (deleted
 * at the end).
 */
public final class ArticlePeersBench {

  /** Client threads of the token and pay pairs. */
  static final int THREADS = 8;

  /** How many requests carry each token or pay each order, at nearly the same moment. */
  static final int USES = 4;

  /** Concurrent payers of the hot-account pair. */
  static final List<Integer> PAYERS = List.of(8, 32, 64);

  /** Idem's best hot-account path must reach this multiple of the article's loop. */
  static final double HOT_AIM = 10.0;

  private ArticlePeersBench() {}

  public static void main(String[] args) throws Exception {
    RunArgs run = RunArgs.parse(args);
    boolean quick = run.quick();
    Duration warmup = quick ? Duration.ofMillis(500) : Duration.ofSeconds(2);
    Duration window = quick ? Duration.ofSeconds(2) : Duration.ofSeconds(5);
    int rounds = quick ? 1 : 3;
    Machine machine = Machine.current();
    Instant started = Instant.now();
    String url = env("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    List<PeerRow> rows = new ArrayList<>();
    Map<String, Long> forged = new LinkedHashMap<>();
    LoadDriver driver = new LoadDriver(THREADS, warmup, window);
    try (RedisRig rig = RedisRig.fromEnvironment()) {
      try (TokenPeers tokens = new TokenPeers(rig)) {
        String pair = "token: %d threads, each token sent %d times".formatted(THREADS, USES);
        rows.addAll(
            PeerRow.turns(
                rounds, tokens.variants(), variant -> tokens.measure(pair, variant, driver, USES)));
        for (String variant : tokens.variants()) {
          forged.put(variant, tokens.forgedAccepted(variant));
        }
      }
      try (PayPeers pay = new PayPeers(rig, url, THREADS)) {
        String pair = "pay: %d threads, each order paid %d times".formatted(THREADS, USES);
        rows.addAll(
            PeerRow.turns(
                rounds,
                pay.variants(),
                variant -> {
                  pay.reset();
                  return pay.measure(pair, variant, driver, USES);
                }));
      }
    }
    HotAccountScenarios hot =
        new HotAccountScenarios(
            url,
            PAYERS.get(PAYERS.size() - 1),
            "bench_article_hot_account",
            "bench_article_hot_ledger");
    try (hot) {
      try {
        for (int payers : PAYERS) {
          LoadDriver hotDriver = new LoadDriver(payers, warmup, window);
          String pair = "hot account: %d payers".formatted(payers);
          rows.addAll(
              PeerRow.turns(
                  rounds,
                  List.of(HotAccountScenarios.ARTICLE, HotAccountScenarios.COALESCING),
                  name -> {
                    hot.reset();
                    return measureHot(pair, name, hot, hotDriver);
                  }));
        }
      } finally {
        hot.drop();
      }
    }
    ArticlePeersSection section =
        new ArticlePeersSection(
            rows,
            forged,
            machine,
            Machine.current().loadAverage(),
            started,
            warmup,
            window,
            rounds);
    List<String> lines = section.lines();
    run.publish("article-peers", lines);
  }

  // Applied deductions count towards throughput; the balance must have dropped by exactly the
  // applied deductions of the whole turn, warmup included, or some were doubled (or lost).
  private static PeerRow measureHot(
      String pair, String name, HotAccountScenarios hot, LoadDriver driver)
      throws InterruptedException, SQLException {
    HotAccountScenarios.Deduct deduct = hot.scenario(name);
    LongAdder calls = new LongAdder();
    LongAdder refused = new LongAdder();
    LongAdder refusedInWindow = new LongAdder();
    long start = System.nanoTime() + driver.warmup().toNanos();
    long end = start + driver.window().toNanos();
    LoadDriver.Result result =
        driver.run(
            () -> {
              boolean applied = deduct.run();
              long now = System.nanoTime();
              calls.increment();
              if (!applied) {
                refused.increment();
                if (now >= start && now < end) {
                  refusedInWindow.increment();
                }
              }
            });
    long applied = calls.sum() - refused.sum();
    BigDecimal expected = HotAccountScenarios.amount().multiply(BigDecimal.valueOf(applied));
    BigDecimal extra = hot.deducted().subtract(expected);
    long doubled = extra.divideToIntegralValue(HotAccountScenarios.amount()).abs().longValueExact();
    return new PeerRow(
        pair,
        name,
        result,
        result.operations() - refusedInWindow.sum(),
        calls.sum(),
        refused.sum(),
        doubled,
        refused.sum());
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
