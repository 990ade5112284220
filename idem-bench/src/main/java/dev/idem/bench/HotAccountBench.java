package dev.idem.bench;

import dev.idem.testsupport.Machine;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The article's version-retry deduction, the single conditional update and the coalescing executor
 * on one hot PostgreSQL row at 8, 32 and 64 concurrent payers, in the same run; writes the {@code
 * hot-account} section of {@code docs/benchmarks.md}.
 *
 * <p>Arguments: {@code --quick} for a short, rough run; {@code --doc=PATH} to write elsewhere.
 */
public final class HotAccountBench {

  private static final List<Integer> PAYERS = List.of(8, 32, 64);
  private static final List<String> SCENARIOS =
      List.of(
          HotAccountScenarios.ARTICLE,
          HotAccountScenarios.CONDITIONAL,
          HotAccountScenarios.COALESCING);

  private HotAccountBench() {}

  public static void main(String[] args) throws Exception {
    RunArgs run = RunArgs.parse(args);
    boolean quick = run.quick();
    Duration warmup = quick ? Duration.ofMillis(500) : Duration.ofSeconds(2);
    Duration window = quick ? Duration.ofSeconds(2) : Duration.ofSeconds(5);
    int rounds = quick ? 1 : 3;
    Machine machine = Machine.current();
    Instant started = Instant.now();
    String url = env("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    List<HotAccountSection.Row> rows = new ArrayList<>();
    try (HotAccountScenarios scenarios = new HotAccountScenarios(url, PAYERS.get(2))) {
      for (int payers : PAYERS) {
        LoadDriver driver = new LoadDriver(payers, warmup, window);
        Map<String, List<HotAccountSection.Row>> turns = new LinkedHashMap<>();
        for (int r = 1; r <= rounds; r++) {
          for (String name : SCENARIOS) {
            scenarios.reset();
            HotAccountSection.Row row = measure(driver, name, scenarios.scenario(name));
            turns.computeIfAbsent(name, n -> new ArrayList<>()).add(row);
            System.out.printf(
                Locale.ROOT,
                "%d payers, round %d: %s: %.0f deductions/s, %d refused%n",
                payers,
                r,
                name,
                row.perSecond(),
                row.refused());
          }
        }
        turns.values().forEach(t -> rows.add(combine(t)));
      }
    }
    HotAccountSection section =
        new HotAccountSection(
            rows, machine, Machine.current().loadAverage(), started, warmup, window, rounds);
    List<String> lines = section.lines();
    run.publish("hot-account", lines);
  }

  private static HotAccountSection.Row measure(
      LoadDriver driver, String name, HotAccountScenarios.Deduct deduct)
      throws InterruptedException {
    LongAdder refused = new LongAdder();
    // The driver's window starts after its warmup, counted from this instant to within
    // microseconds; a refusal counts when it ends inside that window, as the driver counts calls.
    long start = System.nanoTime() + driver.warmup().toNanos();
    long end = start + driver.window().toNanos();
    LoadDriver.Result result =
        driver.run(
            () -> {
              boolean applied = deduct.run();
              long now = System.nanoTime();
              if (!applied && now >= start && now < end) {
                refused.increment();
              }
            });
    long refusals = refused.sum();
    return new HotAccountSection.Row(
        driver.threads(),
        name,
        result.operations() - refusals,
        refusals,
        result.seconds(),
        result.p99Nanos());
  }

  private static HotAccountSection.Row combine(List<HotAccountSection.Row> turns) {
    HotAccountSection.Row first = turns.get(0);
    return new HotAccountSection.Row(
        first.payers(),
        first.scenario(),
        turns.stream().mapToLong(HotAccountSection.Row::applied).sum(),
        turns.stream().mapToLong(HotAccountSection.Row::refused).sum(),
        turns.stream().mapToDouble(HotAccountSection.Row::seconds).sum(),
        turns.stream().mapToLong(HotAccountSection.Row::p99Nanos).max().orElse(0));
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
