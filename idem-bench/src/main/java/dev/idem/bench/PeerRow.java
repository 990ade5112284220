package dev.idem.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One variant of a pair in the article-peers or lock-peers benchmark, all its rounds together.
 *
 * @param pair what the variants of a pair all do, and at what concurrency
 * @param variant the article's code or Idem's
 * @param result the calls that ended in the measured windows
 * @param counted the calls of those windows that count towards throughput: all of them, but for
 *     deductions only the applied ones
 * @param calls every call of the turns, warmups included (what the counts below are out of)
 * @param refused calls answered "repeat" or "busy" without running the work, or deductions refused
 * @param doubled effects beyond the first for one token, order or deduction (must be 0)
 * @param failed tokens or orders whose every call was refused, or deductions refused (the work that
 *     should have run once and never did)
 */
record PeerRow(
    String pair,
    String variant,
    LoadDriver.Result result,
    long counted,
    long calls,
    long refused,
    long doubled,
    long failed) {

  /** The rounds of one variant, as one row. */
  static PeerRow combine(List<PeerRow> rounds) {
    PeerRow first = rounds.get(0);
    return new PeerRow(
        first.pair(),
        first.variant(),
        LoadDriver.Result.combine(rounds.stream().map(PeerRow::result).toList()),
        rounds.stream().mapToLong(PeerRow::counted).sum(),
        rounds.stream().mapToLong(PeerRow::calls).sum(),
        rounds.stream().mapToLong(PeerRow::refused).sum(),
        rounds.stream().mapToLong(PeerRow::doubled).sum(),
        rounds.stream().mapToLong(PeerRow::failed).sum());
  }

  /** One turn of one variant. */
  @FunctionalInterface
  interface Turn {
    PeerRow run(String variant) throws Exception;
  }

  // The variants take turns within each round, so that a change in the machine's load falls on
  // all of them; a variant's row is its rounds together.
  static List<PeerRow> turns(int rounds, Iterable<String> variants, Turn turn) throws Exception {
    Map<String, List<PeerRow>> byVariant = new LinkedHashMap<>();
    for (int r = 1; r <= rounds; r++) {
      for (String variant : variants) {
        PeerRow row = turn.run(variant);
        byVariant.computeIfAbsent(variant, v -> new ArrayList<>()).add(row);
        System.out.printf(
            Locale.ROOT,
            "%s, round %d: %s: %.0f/s, p99 %.2f ms, %d calls, %d refused, %d doubled, %d failed%n",
            row.pair(),
            r,
            variant,
            row.perSecond(),
            row.result().p99Nanos() / 1e6,
            row.calls(),
            row.refused(),
            row.doubled(),
            row.failed());
      }
    }
    return byVariant.values().stream().map(PeerRow::combine).toList();
  }

  /** Counted calls per second of the measured windows. */
  double perSecond() {
    return counted / result.seconds();
  }
}
