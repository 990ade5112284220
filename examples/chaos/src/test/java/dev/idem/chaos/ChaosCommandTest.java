package dev.idem.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ChaosCommandTest {

  private static int run(String... args) {
    return new CommandLine(new ChaosCommand()).execute(args);
  }

  @Test
  void aBadScenarioFileIsExitCode2BeforeAnythingStarts(@TempDir Path dir) throws IOException {
    Path bad = dir.resolve("bad.yml");
    Files.writeString(bad, "name: bad\nusers: 3\nduration: 10s\nmix:\n  orders: 1\n  cardz: 1\n");

    assertThat(run(bad.toString(), "--shop-jar", dir.resolve("none.jar").toString())).isEqualTo(2);
  }

  @Test
  void anUnknownStandardScenarioIsExitCode2() {
    assertThat(run("no-such-scenario")).isEqualTo(2);
  }

  @Test
  void noScenarioIsExitCode2() {
    assertThat(run()).isEqualTo(2);
  }

  @Test
  void aMissingShopJarIsExitCode2(@TempDir Path dir) {
    assertThat(run("--standard", "--shop-jar", dir.resolve("none.jar").toString())).isEqualTo(2);
  }
}
