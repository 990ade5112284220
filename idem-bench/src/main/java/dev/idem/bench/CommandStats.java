package dev.idem.bench;

import io.lettuce.core.api.sync.RedisServerCommands;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads how many times Redis ran each command ({@code INFO commandstats}), so that a scenario can
 * state how many commands one of its operations costs. Redis counts the commands a Lua script calls
 * as well as the script call itself, so the figure is the server's work, not the round trips.
 *
 * <p>The counters are server-wide: anything else talking to the same Redis during a window is
 * counted too. The raw scenarios, which must come out at one command per operation, show how much.
 */
final class CommandStats {

  // Our own reads of the counters are not part of any scenario.
  private static final String SELF = "info";

  private final RedisServerCommands<String, String> server;

  CommandStats(RedisServerCommands<String, String> server) {
    this.server = server;
  }

  /** The counters now. */
  Snapshot snapshot() {
    Map<String, Long> calls = new HashMap<>();
    for (String line : server.info("commandstats").split("\r?\n")) {
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      String name = line.substring("cmdstat_".length(), line.indexOf(':'));
      for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
        if (field.startsWith("calls=")) {
          calls.put(name, Long.parseLong(field.substring("calls=".length())));
        }
      }
    }
    calls.remove(SELF);
    return new Snapshot(Map.copyOf(calls));
  }

  /** Command counters at one moment, by lower-case command name. */
  record Snapshot(Map<String, Long> calls) {

    /** What ran between this snapshot and {@code later}. */
    Delta until(Snapshot later) {
      Map<String, Long> diff = new HashMap<>();
      later.calls.forEach(
          (name, n) -> {
            long d = n - calls.getOrDefault(name, 0L);
            if (d > 0) {
              diff.put(name, d);
            }
          });
      return new Delta(Map.copyOf(diff));
    }
  }

  /** Commands run during a window, by name. */
  record Delta(Map<String, Long> calls) {

    /** The counts of this window and {@code other} together. */
    Delta plus(Delta other) {
      Map<String, Long> sum = new HashMap<>(calls);
      other.calls.forEach((name, n) -> sum.merge(name, n, Long::sum));
      return new Delta(Map.copyOf(sum));
    }

    long total() {
      return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The commands per operation, most frequent first, for example {@code evalsha 1.00, time 1.00};
     * commands under 0.01 per operation are left out.
     */
    String perOp(long ops) {
      if (ops == 0) {
        return "";
      }
      List<Map.Entry<String, Long>> sorted =
          calls.entrySet().stream()
              .filter(e -> e.getValue() / (double) ops >= 0.005)
              .sorted(
                  Comparator.<Map.Entry<String, Long>>comparingLong(Map.Entry::getValue)
                      .reversed()
                      .thenComparing(Map.Entry::getKey))
              .toList();
      return sorted.stream()
          .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue() / (double) ops))
          .collect(Collectors.joining(", "));
    }
  }
}
