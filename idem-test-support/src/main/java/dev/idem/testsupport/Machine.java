package dev.idem.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The machine a benchmark ran on, as printed next to its figures: numbers from another machine or
 * from a busy one are not comparable.
 *
 * @param cpus processors available to the JVM (what {@code nproc} reports)
 * @param cpuModel the model name from {@code /proc/cpuinfo}, or "unknown"
 * @param jvm the JVM's name and version; forks run the same JVM
 * @param os the operating system's name, version and architecture
 * @param loadAverage the one, five and fifteen minute load averages before the run, or "unknown"
 */
public record Machine(int cpus, String cpuModel, String jvm, String os, String loadAverage) {

  /** The machine this JVM runs on. */
  public static Machine current() {
    return new Machine(
        Runtime.getRuntime().availableProcessors(),
        readCpuModel(),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"),
        readLoadAverage());
  }

  /** A Markdown list describing the machine. */
  public List<String> markdown() {
    return List.of(
        "- CPU: " + cpuModel + ", " + cpus + " available to the JVM",
        "- JVM: " + jvm,
        "- OS: " + os,
        "- Load average before the run: " + loadAverage);
  }

  private static String readCpuModel() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
      return lines
          .filter(line -> line.startsWith("model name"))
          .map(line -> line.substring(line.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown");
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static String readLoadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return fields.length < 3 ? "unknown" : String.join(" ", fields[0], fields[1], fields[2]);
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
