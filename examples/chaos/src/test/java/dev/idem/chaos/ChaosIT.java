package dev.idem.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the tiny scenario (src/test/resources/chaos/tiny.yml) against the shop's real jar on its
 * embedded backend: its own port and its own in-memory database, so it shares nothing with other
 * tests. The jar is the one the reactor just built (property chaos.shop.jar, set by the pom).
 */
class ChaosIT {

  @Test
  void aTinyScenarioOnTheEmbeddedShopEndsWithVerdictOk(@TempDir Path dir) throws Exception {
    Path jar = Path.of(System.getProperty("chaos.shop.jar", "missing"));
    assertThat(jar)
        .as("the shop's jar (run through Maven: -pl examples/chaos -am)")
        .isRegularFile();
    Scenario tiny = ScenarioParser.read(Path.of("src/test/resources/chaos/tiny.yml"));
    Settings settings =
        new Settings(
            jar, dir.resolve("work"), dir.resolve("report"), "unused", 0, "unused", "unused", 0);

    List<ChaosRun.Result> results = ChaosCommand.runAll(List.of(tiny), settings);
    Report.write(results, settings.reportDir(), "ChaosIT", Duration.ofSeconds(1));

    Verdict verdict = results.get(0).verdict();
    assertThat(verdict.findings()).isEmpty();
    assertThat(verdict.ok()).isTrue();
    assertThat(verdict.requests()).isGreaterThanOrEqualTo(tiny.requests());
    assertThat(verdict.duplicates()).isPositive();
    assertThat(verdict.effects()).isPositive();
    assertThat(Files.readString(settings.reportDir().resolve("report.md")))
        .contains("| [tiny](#tiny) | OK |");
    assertThat(settings.reportDir().resolve("tiny-throughput.png")).isNotEmptyFile();
    assertThat(settings.reportDir().resolve("tiny-latency.png")).isNotEmptyFile();
  }
}
