package dev.idem.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One database's figures from a {@link JdbcStoreBench} run, set against the raw insert measured on
 * the same pool in the same run, with the aims checked: claim+complete at no less than {@link
 * #AIM_RATIO} of the raw insert rate and at no less than {@link #pairAim()} of the hand-written
 * pair's rate, and no commit in join mode beyond the business transaction's own.
 *
 * @param database the database's name
 * @param version the server's version, as its JDBC driver reports it
 * @param rows every scenario in the order it ran
 */
record JdbcStoreTable(String database, String version, List<Row> rows) {

  static final String RAW = "raw insert";
  static final String MINIMAL_PAIR = "hand-written pair (INSERT + UPDATE)";
  static final String CLAIM_COMPLETE = "claim + complete";
  static final String CLAIM_COMPLETE_CAPPED = "claim + complete, capped scope";
  static final String CLAIM_COMPLETE_READ_COMMITTED = "claim + complete, READ COMMITTED claims";
  static final String REPLAY = "replay (claim of a completed key)";
  static final String BUSINESS = "business tx";
  static final String BUSINESS_JOINED = "business tx + execute, join mode";

  /** The least fraction of the raw insert rate claim+complete should reach. */
  static final double AIM_RATIO = 0.45;

  /**
   * The least fraction of the hand-written pair's rate claim+complete should reach: 90 % on
   * MariaDB, whose claim needs a statement the pair does not (its upsert cannot return the row it
   * met), 95 % elsewhere.
   */
  double pairAim() {
    return database.startsWith("MariaDB") ? 0.90 : 0.95;
  }

  /**
   * One scenario: its throughput under load, and what a counted run of it did per operation.
   *
   * @param scenario the scenario's name
   * @param load the measured windows under load, taken together
   * @param roundRates operations per second in each round's window, in order
   * @param counted what the counting pool saw during the counted run
   * @param countedOps how many operations the counted run did, one after another
   */
  record Row(
      String scenario,
      LoadDriver.Result load,
      List<Double> roundRates,
      CountingDataSource.Counts counted,
      int countedOps) {

    double statements() {
      return (double) counted.statements() / countedOps;
    }

    double commits() {
      return (double) counted.commits() / countedOps;
    }

    double autoCommits() {
      return (double) counted.autoCommitStatements() / countedOps;
    }

    double connections() {
      return (double) counted.connections() / countedOps;
    }
  }

  /** The baseline: raw inserts per second over all rounds. */
  double rawRate() {
    return row(RAW).load().perSecond();
  }

  /** claim+complete pairs per second over the raw insert rate, all rounds taken together. */
  double claimCompleteRatio() {
    return row(CLAIM_COMPLETE).load().perSecond() / rawRate();
  }

  /** The same ratio round by round: how much it moved while the machine's load did. */
  List<Double> claimCompleteRatioByRound() {
    return byRound(CLAIM_COMPLETE, RAW);
  }

  // subject's rate over baseline's, round by round
  private List<Double> byRound(String subject, String baseline) {
    List<Double> base = row(baseline).roundRates();
    List<Double> rates = row(subject).roundRates();
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < Math.min(base.size(), rates.size()); i++) {
      ratios.add(rates.get(i) / base.get(i));
    }
    return ratios;
  }

  /** claim+complete pairs per second over the hand-written pair's, all rounds together. */
  double claimCompleteVsMinimalPair() {
    return row(CLAIM_COMPLETE).load().perSecond() / row(MINIMAL_PAIR).load().perSecond();
  }

  /** The hand-written pair's rate over the raw insert rate: what two statements cost here. */
  double minimalPairRatio() {
    return row(MINIMAL_PAIR).load().perSecond() / rawRate();
  }

  /**
   * Commits a business transaction gains from running its work through a join-mode store: explicit
   * commits plus statements run in auto-commit mode, each of which commits on its own.
   */
  double extraCommitsInJoinMode() {
    Row with = row(BUSINESS_JOINED);
    Row without = row(BUSINESS);
    return (with.commits() + with.autoCommits()) - (without.commits() + without.autoCommits());
  }

  /**
   * "met" when both the pooled ratio and the median of the rounds' ratios reach the aim, "missed"
   * when neither does, and "on the line" when they disagree: on a busy machine one figure alone
   * does not settle a ratio that close to the aim.
   */
  String ratioVerdict() {
    return verdict(claimCompleteRatio(), claimCompleteRatioByRound(), AIM_RATIO);
  }

  private static String verdict(double pooledRatio, List<Double> byRound, double aim) {
    boolean pooled = pooledRatio >= aim;
    boolean median = median(byRound) >= aim;
    return pooled && median ? "met" : !pooled && !median ? "missed" : "on the line";
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  boolean joinAimMet() {
    return extraCommitsInJoinMode() == 0;
  }

  /** The Markdown table, one row per scenario. */
  List<String> markdown() {
    List<String> lines = new ArrayList<>();
    lines.add(
        "| Scenario | ops/s | vs raw insert | p50 ms | p99 ms | statements/op | commit() calls/op"
            + " | auto-commit statements/op | connections/op |");
    lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (Row r : rows) {
      lines.add(
          "| %s | %s | %s | %s | %s | %s | %s | %s | %s |"
              .formatted(
                  r.scenario(),
                  format("%.0f", r.load().perSecond()),
                  format("%.0f %%", 100 * r.load().perSecond() / rawRate()),
                  millis(r.load().p50Nanos()),
                  millis(r.load().p99Nanos()),
                  format("%.2f", r.statements()),
                  format("%.2f", r.commits()),
                  format("%.2f", r.autoCommits()),
                  format("%.2f", r.connections())));
    }
    return lines;
  }

  /** The three aims, one line each, saying whether they are met. */
  List<String> verdicts() {
    Row joined = row(BUSINESS_JOINED);
    Row plain = row(BUSINESS);
    List<Double> byRound = claimCompleteRatioByRound();
    List<Double> pairByRound = byRound(CLAIM_COMPLETE, MINIMAL_PAIR);
    String rounds =
        String.join(", ", byRound.stream().map(r -> format("%.0f %%", 100 * r)).toList());
    return List.of(
        "- claim + complete at ≥ %.0f %% of the raw insert rate: %s"
                .formatted(100 * AIM_RATIO, format("%.1f %%", 100 * claimCompleteRatio()))
            + " — **%s** (median of the rounds %s; round by round: %s)"
                .formatted(
                    ratioVerdict(),
                    format("%.1f %%", 100 * median(claimCompleteRatioByRound())),
                    rounds),
        "- claim + complete at ≥ %.0f %% of the hand-written pair's rate: %s"
                .formatted(100 * pairAim(), format("%.1f %%", 100 * claimCompleteVsMinimalPair()))
            + " — **%s** (median of the rounds %s; round by round: %s); the pair itself reaches %s"
                .formatted(
                    verdict(claimCompleteVsMinimalPair(), pairByRound, pairAim()),
                    format("%.1f %%", 100 * median(pairByRound)),
                    String.join(
                        ", ", pairByRound.stream().map(r -> format("%.0f %%", 100 * r)).toList()),
                    format("%.1f %%", 100 * minimalPairRatio()))
            + " of the raw insert rate",
        "- join mode adds no commit: %s commits per business transaction with Idempotency, %s"
                .formatted(
                    format("%.2f", joined.commits() + joined.autoCommits()),
                    format("%.2f", plain.commits() + plain.autoCommits()))
            + " without, %s extra".formatted(format("%.2f", extraCommitsInJoinMode()))
            + (joinAimMet() ? " — **met**" : " — **missed**")
            + "; %s vs %s tx/s (%s)"
                .formatted(
                    format("%.0f", joined.load().perSecond()),
                    format("%.0f", plain.load().perSecond()),
                    format("%.0f %%", 100 * joined.load().perSecond() / plain.load().perSecond())));
  }

  Row row(String scenario) {
    return rows.stream()
        .filter(r -> r.scenario().equals(scenario))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no figures for " + scenario));
  }

  private static String millis(long nanos) {
    return format("%.2f", nanos / 1e6);
  }

  private static String format(String pattern, double value) {
    return String.format(Locale.ROOT, pattern, value);
  }
}
