package dev.idem.bench;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The figures of one run set against its baseline: each benchmark's time per call, and what it adds
 * to the baseline measured in the same run, checked against an aim.
 *
 * <p>An added cost's error combines the two scores' errors (JMH's 99.9% confidence half-widths) in
 * quadrature, which treats the two measurements as independent.
 *
 * @param baseline the score everything is compared with
 * @param others the scores to compare, in the order they are shown
 * @param aimNanos the most a call may add, in nanoseconds
 * @param checked the benchmarks the aim applies to; the others are shown for information
 */
record OverheadTable(Score baseline, List<Score> others, double aimNanos, List<String> checked) {

  /**
   * One benchmark's result.
   *
   * @param name the benchmark method
   * @param nanos mean time per call in nanoseconds
   * @param error the half-width of its 99.9% confidence interval, NaN when JMH has none
   */
  record Score(String name, double nanos, double error) {}

  /** The Markdown table, one row per score, the baseline first. */
  List<String> markdown() {
    List<String> lines = new ArrayList<>();
    lines.add("| Benchmark | ns/op | Added per call vs `" + baseline.name() + "` | Within aim |");
    lines.add("|---|---:|---:|:---:|");
    lines.add(row(baseline, "(baseline)", ""));
    for (Score s : others) {
      String added = micros(s.nanos() - baseline.nanos(), addedError(s)) + " µs";
      lines.add(row(s, added, verdict(s)));
    }
    return lines;
  }

  /** One sentence saying whether every checked benchmark stays within the aim. */
  String summary() {
    List<String> over = new ArrayList<>();
    List<String> unclear = new ArrayList<>();
    for (Score s : others) {
      if (!checked.contains(s.name())) {
        continue;
      }
      double added = s.nanos() - baseline.nanos();
      switch (verdict(s)) {
        case "no" ->
            over.add(
                "`%s` adds %s µs, %s µs over"
                    .formatted(s.name(), number(added / 1000), number((added - aimNanos) / 1000)));
        case "unclear" -> unclear.add("`" + s.name() + "`");
        default -> {}
      }
    }
    String aim = "under " + plain(aimNanos / 1000) + " µs added per call";
    if (!over.isEmpty()) {
      return "**Aim missed** (" + aim + "): " + String.join("; ", over) + ".";
    }
    if (!unclear.isEmpty()) {
      return "**Aim not settled** ("
          + aim
          + "): the error of "
          + String.join(", ", unclear)
          + " straddles it; run again on a quieter machine.";
    }
    return "**Aim met** (" + aim + ") by " + String.join(", ", quoted(checked)) + ".";
  }

  // "yes" only when the whole confidence interval is under the aim, "no" when it is all above.
  private String verdict(Score s) {
    if (!checked.contains(s.name())) {
      return "(not checked)";
    }
    double added = s.nanos() - baseline.nanos();
    double error = Double.isNaN(addedError(s)) ? 0 : addedError(s);
    if (added + error < aimNanos) {
      return "yes";
    }
    return added - error > aimNanos ? "no" : "unclear";
  }

  private double addedError(Score s) {
    return Math.hypot(s.error(), baseline.error());
  }

  private static String row(Score s, String added, String verdict) {
    return "| `%s` | %s | %s | %s |"
        .formatted(s.name(), plusMinus(s.nanos(), s.error()), added, verdict);
  }

  private static String micros(double nanos, double error) {
    return plusMinus(nanos / 1000, error / 1000);
  }

  /**
   * What {@code subject} adds to {@code reference}, both from this run, as "{@code X ± Y µs}" (the
   * errors combined as independent), or empty when either did not run.
   */
  Optional<String> added(String subject, String reference) {
    Optional<Score> s = others.stream().filter(o -> o.name().equals(subject)).findFirst();
    Optional<Score> r = others.stream().filter(o -> o.name().equals(reference)).findFirst();
    return s.flatMap(
        a ->
            r.map(
                b ->
                    plusMinus(
                            (a.nanos() - b.nanos()) / 1000,
                            Math.sqrt(a.error() * a.error() + b.error() * b.error()) / 1000)
                        + " µs"));
  }

  private static String plusMinus(double value, double error) {
    String pattern = pattern(value);
    return Double.isNaN(error)
        ? format(pattern, value)
        : format(pattern, value) + " ± " + format(pattern, error);
  }

  private static String number(double value) {
    return format(pattern(value), value);
  }

  // At least three significant digits for the value, never scientific notation; an error is
  // shown to the same decimals as its value.
  private static String pattern(double value) {
    double magnitude = Math.abs(value);
    return magnitude >= 100 ? "%.0f" : magnitude >= 10 ? "%.1f" : "%.3f";
  }

  private static String format(String pattern, double value) {
    return String.format(Locale.ROOT, pattern, value);
  }

  private static String plain(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  private static List<String> quoted(List<String> names) {
    return names.stream().map(n -> "`" + n + "`").toList();
  }
}
