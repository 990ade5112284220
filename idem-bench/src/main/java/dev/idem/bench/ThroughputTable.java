package dev.idem.bench;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The figures of a load run: throughput, latency and Redis commands per operation for each
 * scenario, and the aims, each a least ratio between two scenarios of the same run.
 *
 * @param rows each scenario's rounds together, in the order they ran
 * @param rounds each round's rows on their own, to show how much a ratio moved between rounds
 * @param aims the ratios to check
 */
record ThroughputTable(List<Row> rows, List<List<Row>> rounds, List<Aim> aims) {

  /** The table of {@code rounds}, each a list of the same scenarios in the same order. */
  static ThroughputTable of(List<List<Row>> rounds, List<Aim> aims) {
    List<Row> rows = new ArrayList<>(rounds.get(0));
    for (List<Row> round : rounds.subList(1, rounds.size())) {
      for (int i = 0; i < rows.size(); i++) {
        Row sum = rows.get(i);
        rows.set(i, new Row(sum.name(), sum.result().plus(round.get(i).result())));
      }
    }
    return new ThroughputTable(List.copyOf(rows), List.copyOf(rounds), aims);
  }

  /**
   * One scenario's result.
   *
   * @param name shown in the table and named by aims
   * @param result what the driver measured
   */
  record Row(String name, RedisLoadDriver.Result result) {}

  /**
   * Throughput of {@code subject} must be at least {@code least} times that of {@code baseline}.
   *
   * @param subject the scenario the aim is about
   * @param baseline the scenario it is compared with
   * @param least the smallest acceptable ratio, or NaN for a ratio shown only for comparison
   * @param percent whether to show the ratio in percent (else as a multiple)
   */
  record Aim(String subject, String baseline, double least, boolean percent) {

    /** A ratio without a target, shown beside the aims to explain them. */
    static Aim comparison(String subject, String baseline, boolean percent) {
      return new Aim(subject, baseline, Double.NaN, percent);
    }

    boolean hasTarget() {
      return !Double.isNaN(least);
    }

    String target() {
      if (!hasTarget()) {
        return "none";
      }
      return percent ? "≥ " + Math.round(least * 100) + " %" : "≥ " + plain(least) + "×";
    }

    String shown(double ratio) {
      return percent
          ? String.format(Locale.ROOT, "%.0f %%", ratio * 100)
          : String.format(Locale.ROOT, "%.2f×", ratio);
    }
  }

  /** The scenario table. */
  List<String> markdown() {
    List<String> lines = new ArrayList<>();
    lines.add(
        "| Scenario | ops/s | p50 ms | p99 ms | Redis commands per op | Redis CPU µs/op"
            + " | client CPU µs/op | refused |");
    lines.add("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (Row row : rows) {
      RedisLoadDriver.Result r = row.result();
      lines.add(
          "| %s | %s | %s | %s | %s | %s | %s | %d |"
              .formatted(
                  row.name(),
                  String.format(Locale.ROOT, "%,.0f", r.perSecond()),
                  millis(r.millisAt(50)),
                  millis(r.millisAt(99)),
                  String.format(Locale.ROOT, "%.2f", r.commandsPerOp()),
                  String.format(Locale.ROOT, "%.1f", r.redisMicrosPerOp()),
                  String.format(Locale.ROOT, "%.1f", r.clientMicrosPerOp()),
                  r.refused()));
    }
    return lines;
  }

  /** The aims table: each ratio, its target, and whether it was met and by how much. */
  List<String> aimsMarkdown() {
    List<String> lines = new ArrayList<>();
    lines.add("| Aim | Measured | Target | Met | Each round |");
    lines.add("|---|---:|---:|:---|---:|");
    for (Aim aim : aims) {
      double ratio = ratio(aim, rows);
      List<String> each = rounds.stream().map(round -> aim.shown(ratio(aim, round))).toList();
      lines.add(
          "| %s vs %s | %s | %s | %s | %s |"
              .formatted(
                  aim.subject(),
                  aim.baseline(),
                  aim.shown(ratio),
                  aim.target(),
                  met(aim),
                  String.join(", ", each)));
    }
    return lines;
  }

  /** Which commands each scenario ran per operation, as a Markdown list. */
  List<String> commandsMarkdown() {
    List<String> lines = new ArrayList<>();
    for (Row row : rows) {
      RedisLoadDriver.Result r = row.result();
      lines.add("- " + row.name() + ": " + r.commands().perOp(r.done() + r.refused()));
    }
    return lines;
  }

  /** One sentence: every aim met, or which were missed and by how much. */
  String summary() {
    List<String> missed = new ArrayList<>();
    for (Aim aim : aims) {
      if (aim.hasTarget() && ratio(aim) < aim.least()) {
        missed.add(aim.subject() + " vs " + aim.baseline() + " " + aim.shown(ratio(aim)));
      }
    }
    return missed.isEmpty()
        ? "**All aims met.**"
        : "**Aims missed**: " + String.join("; ", missed) + ".";
  }

  double ratio(Aim aim) {
    return ratio(aim, rows);
  }

  private static double ratio(Aim aim, List<Row> rows) {
    return find(rows, aim.subject()).perSecond() / find(rows, aim.baseline()).perSecond();
  }

  private String met(Aim aim) {
    if (!aim.hasTarget()) {
      return "for comparison";
    }
    double ratio = ratio(aim);
    double margin = ratio - aim.least();
    String by =
        aim.percent()
            ? String.format(Locale.ROOT, "%+.0f points", margin * 100)
            : String.format(Locale.ROOT, "%+.2f×", margin);
    return (margin >= 0 ? "yes, " : "**no**, ") + by;
  }

  private static RedisLoadDriver.Result find(List<Row> rows, String name) {
    return rows.stream()
        .filter(row -> row.name().equals(name))
        .map(Row::result)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no scenario " + name));
  }

  private static String millis(double ms) {
    return String.format(Locale.ROOT, ms >= 10 ? "%.1f" : "%.2f", ms);
  }

  private static String plain(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }
}
