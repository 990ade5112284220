package dev.idem.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code chaos}: drives the shop through scenarios, injects their faults, and checks what it sent
 * against what the shop says. Exit code 0 when every scenario's verdict is OK, 1 when one is not, 2
 * on a bad command line or scenario file.
 */
@Command(
    name = "chaos",
    mixinStandardHelpOptions = true,
    version = "idem chaos 0.1.0-SNAPSHOT",
    description =
        "Load and chaos run against the shop (examples/shop): virtual users, duplicate keys, faults,"
            + " then a verdict: nothing doubled, nothing lost, every repeat answered like the first."
            + " Exit code 0 when every verdict is OK, 1 when one is not, 2 for bad input.")
public final class ChaosCommand implements Callable<Integer> {

  /** The standard scenarios, in the order scripts/chaos runs them. */
  public static final List<String> STANDARD =
      List.of(
          "steady-duplicates",
          "kill-an-instance",
          "redis-flush",
          "gateway-timeouts",
          "proxy-faults",
          "postgres-restart",
          "partition",
          "redis-failover",
          "kill-mid-flow");

  @Parameters(
      paramLabel = "SCENARIO",
      description = "scenario files (YAML), or names of standard scenarios",
      arity = "0..*")
  private List<String> scenarios = new ArrayList<>();

  @Option(names = "--standard", description = "run every standard scenario")
  private boolean standard;

  @Option(
      names = "--shop-jar",
      description = "the shop's executable jar (default: ${DEFAULT-VALUE})",
      defaultValue = "examples/shop/target/idem-shop-0.1.0-SNAPSHOT.jar")
  private Path shopJar;

  @Option(
      names = "--report",
      description = "report folder (default: ${DEFAULT-VALUE})",
      defaultValue = "docs/chaos")
  private Path reportDir;

  @Option(names = "--no-report", description = "print the verdicts only")
  private boolean noReport;

  @Option(
      names = "--work",
      description = "logs of shops and Redis (default: ${DEFAULT-VALUE})",
      defaultValue = "examples/chaos/target/work")
  private Path workDir;

  @Option(
      names = "--postgres",
      description = "PostgreSQL host:port (default: ${DEFAULT-VALUE})",
      defaultValue = "127.0.0.1:5432")
  private String postgres;

  @Option(
      names = "--rabbit",
      description = "RabbitMQ host:port (default: ${DEFAULT-VALUE})",
      defaultValue = "127.0.0.1:5672")
  private String rabbit;

  @Override
  public Integer call() throws Exception {
    List<Scenario> toRun = new ArrayList<>();
    try {
      if (standard) {
        STANDARD.forEach(name -> toRun.add(ScenarioParser.standard(name)));
      }
      for (String s : scenarios) {
        toRun.add(
            Files.exists(Path.of(s))
                ? ScenarioParser.read(Path.of(s))
                : ScenarioParser.standard(s));
      }
    } catch (ScenarioException e) {
      System.err.println("chaos: " + e.getMessage());
      return 2;
    }
    if (toRun.isEmpty()) {
      System.err.println("chaos: name a scenario or give --standard (see --help)");
      return 2;
    }
    if (!Files.isRegularFile(shopJar)) {
      System.err.println("chaos: no shop jar at " + shopJar + " (build it: scripts/chaos does)");
      return 2;
    }
    Files.createDirectories(workDir);
    Settings settings =
        new Settings(
            shopJar.toAbsolutePath(),
            workDir.toAbsolutePath(),
            reportDir,
            host(postgres),
            port(postgres),
            "postgres",
            host(rabbit),
            port(rabbit));
    Instant began = Instant.now();
    List<ChaosRun.Result> results = runAll(toRun, settings);
    Duration took = Duration.between(began, Instant.now());
    Report.table(results, System.out);
    if (!noReport) {
      Report.write(results, reportDir, "scripts/chaos", took);
      System.out.println("\nreport: " + reportDir.resolve("report.md"));
    }
    System.out.printf("%ntook %d min %02d s%n", took.toMinutes(), took.toSecondsPart());
    return results.stream().allMatch(r -> r.verdict().ok()) ? 0 : 1;
  }

  /** Runs the scenarios one after another. */
  static List<ChaosRun.Result> runAll(List<Scenario> scenarios, Settings settings)
      throws Exception {
    ChaosRun run = new ChaosRun(settings, System.out);
    List<ChaosRun.Result> results = new ArrayList<>();
    for (Scenario s : scenarios) {
      try {
        results.add(run.run(s));
      } catch (Exception e) {
        // One scenario that cannot run (a shop that does not start) must not hide the others.
        e.printStackTrace(System.out);
        results.add(ChaosRun.Result.failed(s, e.toString()));
      }
    }
    return results;
  }

  private static String host(String hostPort) {
    return hostPort.substring(0, hostPort.lastIndexOf(':'));
  }

  private static int port(String hostPort) {
    return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
  }

  /** Runs the command and exits with its code. */
  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(new CommandLine(new ChaosCommand()).execute(args));
  }
}
