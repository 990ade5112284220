package dev.idem.bench;

import java.util.List;

/**
 * One variant of a pair in the article-peers benchmark, all its rounds together.
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

  /** Counted calls per second of the measured windows. */
  double perSecond() {
    return counted / result.seconds();
  }
}
