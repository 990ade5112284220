package dev.idem.bench;

import java.time.Duration;

/**
 * How long a load run measures. Every scenario is measured in each of several rounds, the scenarios
 * taking turns, so that a change in the machine's load during the run falls on all of them rather
 * than on whichever ran at that moment; a scenario's figures are its rounds together.
 *
 * @param threads client threads per scenario
 * @param rounds how many times each scenario is measured
 * @param firstWarmup warmup before a scenario's first round, while the JIT compiles its path
 * @param warmup warmup before each later round
 * @param window measured time per round
 */
record RunPlan(int threads, int rounds, Duration firstWarmup, Duration warmup, Duration window) {

  /** The plan for a report: 3 rounds of 4 s, 12 s measured per scenario. */
  static RunPlan full(int threads) {
    return new RunPlan(
        threads, 3, Duration.ofSeconds(5), Duration.ofSeconds(2), Duration.ofSeconds(4));
  }

  /** A short, rough run that shows the benchmark works. */
  static RunPlan quick(int threads) {
    return new RunPlan(
        threads, 1, Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofSeconds(1));
  }

  /** Warmup before round {@code round}, counted from 0. */
  Duration warmupBefore(int round) {
    return round == 0 ? firstWarmup : warmup;
  }

  /** A line for the report. */
  String describe() {
    return "%d threads; %d round%s of %s measured per scenario (%s warmup before the first, %s"
            .formatted(
                threads,
                rounds,
                rounds == 1 ? "" : "s",
                seconds(window),
                seconds(firstWarmup),
                seconds(warmup))
        + " before each later one), scenarios taking turns";
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
  }
}
