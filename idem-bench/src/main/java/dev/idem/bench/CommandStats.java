package dev.idem.bench;

import com.sun.management.OperatingSystemMXBean;
import io.lettuce.core.api.sync.RedisServerCommands;
import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads how many times Redis ran each command ({@code INFO commandstats}), so that a scenario can
 * state how many commands one of its operations costs. Redis counts the commands a Lua script calls
 * as well as the script call itself, so the figure is the server's work, not the round trips. It
 * also reads the CPU time Redis used ({@code INFO cpu}) and the CPU time of this JVM: with client
 * and server on one small machine, the CPU an operation costs on either side bounds the rate.
 *
 * <p>The counters are server-wide: anything else talking to the same Redis during a window is
 * counted too. The raw scenarios, which must come out at one command per operation, show how much.
 */
final class CommandStats {

  private static final OperatingSystemMXBean CLIENT =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

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
    return new Snapshot(Map.copyOf(calls), redisCpuNanos(), CLIENT.getProcessCpuTime());
  }

  private long redisCpuNanos() {
    double seconds = 0;
    for (String line : server.info("cpu").split("\r?\n")) {
      if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
        seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return Math.round(seconds * 1e9);
  }

  /**
   * Counters at one moment.
   *
   * @param calls commands run, by lower-case name
   * @param redisCpu CPU time the Redis server has used, user and system, in nanoseconds
   * @param clientCpu CPU time this JVM has used, in nanoseconds
   */
  record Snapshot(Map<String, Long> calls, long redisCpu, long clientCpu) {

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
      return new Delta(Map.copyOf(diff), later.redisCpu - redisCpu, later.clientCpu - clientCpu);
    }
  }

  /**
   * What a window cost.
   *
   * @param calls commands run, by lower-case name
   * @param redisCpu CPU time of the Redis server, in nanoseconds
   * @param clientCpu CPU time of this JVM, in nanoseconds
   */
  record Delta(Map<String, Long> calls, long redisCpu, long clientCpu) {

    /** The counts of this window and {@code other} together. */
    Delta plus(Delta other) {
      Map<String, Long> sum = new HashMap<>(calls);
      other.calls.forEach((name, n) -> sum.merge(name, n, Long::sum));
      return new Delta(Map.copyOf(sum), redisCpu + other.redisCpu, clientCpu + other.clientCpu);
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
