package dev.idem.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Answers per second and their latencies, for the progress line, the verdict's percentiles and the
 * charts. A request counts in the second its answer (or its failure) arrived.
 */
public final class Timeline {

  private static final long MAX_MICROS = 600_000_000L;

  private final ConcurrentMap<Integer, Histogram> seconds = new ConcurrentHashMap<>();
  private final Histogram all = new ConcurrentHistogram(MAX_MICROS, 2);

  /** One request that took {@code micros} and ended {@code endMillis} after the start. */
  public void record(long endMillis, long micros) {
    long clamped = Math.max(1, Math.min(micros, MAX_MICROS));
    all.recordValue(clamped);
    seconds
        .computeIfAbsent((int) (endMillis / 1000), s -> new ConcurrentHistogram(MAX_MICROS, 2))
        .recordValue(clamped);
  }

  /** Every request so far. */
  public Histogram all() {
    return all;
  }

  /** The requests answered in second {@code second} (empty when none). */
  public Histogram second(int second) {
    Histogram h = seconds.get(second);
    return h == null ? new Histogram(MAX_MICROS, 2) : h;
  }

  /** The seconds from 0 to the last one with an answer. */
  public List<Integer> range() {
    int last = seconds.keySet().stream().mapToInt(Integer::intValue).max().orElse(-1);
    List<Integer> range = new ArrayList<>();
    for (int s = 0; s <= last; s++) {
      range.add(s);
    }
    return range;
  }

  /** A percentile of {@code h} in milliseconds (0 when it is empty). */
  public static double millis(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile) / 1000.0;
  }
}
