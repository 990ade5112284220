package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arguments every report runner takes: {@code --quick} for a short, rough run, {@code
 * --doc=PATH} to write elsewhere than {@code docs/benchmarks.md}, and the {@code --NAME=VALUE}
 * options a runner names. A run of only part of a report (one of its options given) must name its
 * own {@code --doc}, so that it never replaces the full section of the committed page.
 *
 * @param quick whether {@code --quick} was given
 * @param doc the Markdown file to write
 * @param options the runner's options that were given, by name
 */
record RunArgs(boolean quick, Path doc, Map<String, String> options) {

  /** How every report dates its run. */
  static final DateTimeFormatter DATE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").withZone(ZoneOffset.UTC);

  /**
   * Parses {@code args}.
   *
   * @param partial the options that run only part of the report, so need {@code --doc}
   * @param others the options that do not
   * @throws IllegalArgumentException for an unknown argument, or a partial run without {@code
   *     --doc}
   */
  static RunArgs parse(String[] args, List<String> partial, List<String> others) {
    boolean quick = false;
    Path doc = null;
    Map<String, String> options = new LinkedHashMap<>();
    for (String arg : args) {
      String name = arg.contains("=") ? arg.substring(2, arg.indexOf('=')) : arg.substring(2);
      if (arg.equals("--quick")) {
        quick = true;
      } else if (arg.startsWith("--doc=")) {
        doc = Path.of(arg.substring("--doc=".length()));
      } else if (arg.startsWith("--")
          && arg.contains("=")
          && (partial.contains(name) || others.contains(name))) {
        options.put(name, arg.substring(arg.indexOf('=') + 1));
      } else {
        StringBuilder usage = new StringBuilder("--quick, --doc=PATH");
        for (String option : partial) {
          usage.append(", --").append(option).append("=...");
        }
        for (String option : others) {
          usage.append(", --").append(option).append("=...");
        }
        throw new IllegalArgumentException("unknown argument " + arg + "; use " + usage);
      }
    }
    if (doc == null) {
      for (String option : partial) {
        if (options.containsKey(option)) {
          throw new IllegalArgumentException("--" + option + " needs --doc=PATH");
        }
      }
    }
    return new RunArgs(quick, doc == null ? Path.of(BenchReport.DOC) : doc, options);
  }

  /** {@code args} of a runner with no options of its own. */
  static RunArgs parse(String[] args) {
    return parse(args, List.of(), List.of());
  }

  /**
   * Writes {@code lines} as section {@code name} of {@link #doc()} and prints them, for the one
   * reading the console.
   */
  void publish(String name, List<String> lines) throws IOException {
    new GeneratedSection(doc, name, BenchReport.DOC_INTRO).write(String.join("\n", lines));
    System.out.println();
    lines.forEach(System.out::println);
    System.out.println("Written to " + doc);
  }

  /** The value of option {@code name}, or {@code fallback} when it was not given. */
  String option(String name, String fallback) {
    return options.getOrDefault(name, fallback);
  }
}
