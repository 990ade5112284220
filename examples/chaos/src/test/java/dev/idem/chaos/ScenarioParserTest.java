package dev.idem.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScenarioParserTest {

  private static final String GOOD =
      """
      name: kill-one
      description: a test
      backend: services
      instances: 3
      users: 10
      duration: 40s
      load:
        capacity: 8s
        share: 0.6
      duplicates:
        rate: 0.3
        concurrent: 0.5
        max-delay: 1500ms
        other-key: 0.25
      mix:
        orders: 4
        card: 2
        wallet: 1
        callbacks: 1
      shop:
        shop.gateway.timeout-rate: 0.5
      faults:
        - at: 10s
          action: kill
          instance: 2
        - at: 20s
          action: restart
          instance: 2
        - at: 30s
          action: db-latency
          latency: 50ms
      """;

  private static Scenario parse(String yaml) {
    return ScenarioParser.parse(
        "test.yml", new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void readsEveryField() {
    Scenario s = parse(GOOD);

    assertThat(s.name()).isEqualTo("kill-one");
    assertThat(s.backend()).isEqualTo(Scenario.Backend.SERVICES);
    assertThat(s.instances()).isEqualTo(3);
    assertThat(s.users()).isEqualTo(10);
    assertThat(s.duration()).isEqualTo(Duration.ofSeconds(40));
    assertThat(s.requests()).isZero();
    assertThat(s.load())
        .isEqualTo(new Scenario.Load(Duration.ofSeconds(10), Duration.ofSeconds(8), 0.6));
    assertThat(s.duplicates())
        .isEqualTo(new Scenario.Duplicates(0.3, 0.5, Duration.ofMillis(1500), 0.25));
    assertThat(s.mix()).isEqualTo(new Scenario.Mix(4, 2, 1, 1));
    assertThat(s.shop()).containsEntry("shop.gateway.timeout-rate", "0.5");
    assertThat(s.faults())
        .containsExactly(
            new Scenario.Fault(Duration.ofSeconds(10), FaultAction.KILL, 2, Duration.ZERO),
            new Scenario.Fault(Duration.ofSeconds(20), FaultAction.RESTART, 2, Duration.ZERO),
            new Scenario.Fault(
                Duration.ofSeconds(30), FaultAction.DB_LATENCY, 0, Duration.ofMillis(50)));
  }

  @Test
  void readsEveryStandardScenario() {
    for (String name : ChaosCommand.STANDARD) {
      assertThat(ScenarioParser.standard(name).name()).isEqualTo(name);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "users: 10|users: ten|test.yml: users: must be a whole number",
        "users: 10|users: 0|test.yml: users: must be a whole number from 1 to 200",
        "  rate: 0.3|  rate: 1.5|test.yml: duplicates.rate: must be a number from 0 to 1",
        "  max-delay: 1500ms|  max-delay: soon|test.yml: duplicates.max-delay: must be a duration",
        "  other-key: 0.25|  other-key: many|test.yml: duplicates.other-key: must be a number from 0 to 1",
        "  card: 2|  cards: 2|test.yml: mix.cards: unknown field",
        "backend: services|backend: cloud|test.yml: backend: must be embedded or services",
        "    action: kill|    action: explode|test.yml: faults[0].action: unknown action 'explode'",
        "    instance: 2|    instance: 4|test.yml: faults[0].instance: must be a whole number from 1 to 3",
        "  - at: 30s|  - at: 90s|test.yml: faults[2].at: is not before the end of the run",
        "    latency: 50ms|    latncy: 50ms|test.yml: faults[2].latncy: unknown field",
        "name: kill-one|name: Kill One|test.yml: name: must be lower-case",
        "duration: 40s|requests: 100\\nduration: 40s|test.yml: duration: give exactly one of duration and requests",
        "description: a test|descripton: a test|test.yml: descripton: unknown field",
        "  share: 0.6|  share: 0|test.yml: load.share: must be above 0",
        "  share: 0.6|  share: 2|test.yml: load.share: must be a number from 0 to 1",
        "  capacity: 8s|  capacity: 500ms|test.yml: load.capacity: must be 0 or at least 1s",
        "  capacity: 8s|  capacity: 0s|test.yml: load.share: needs a capacity window",
        "  capacity: 8s|  capcity: 8s|test.yml: load.capcity: unknown field",
        "  capacity: 8s|  capacity: 0s\\n  warmup: 5s|test.yml: load.warmup: needs a capacity window",
        "  share: 0.6|  share: 0.6\\n  warmup: soon|test.yml: load.warmup: must be a duration",
      })
  void namesTheFieldOfAMistake(String good, String bad, String message) {
    String yaml = GOOD.replace(good, bad.replace("\\n", "\n"));
    assertThat(yaml).isNotEqualTo(GOOD);

    assertThatThrownBy(() -> parse(yaml))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void aLoadBoundedByTimeRunsAtHalfItsCapacityUnlessTold() {
    Scenario timed = parse(GOOD.replace("  capacity: 8s\n  share: 0.6\n", "  share: 0.6\n"));
    Scenario untold = parse(GOOD.replace("load:\n  capacity: 8s\n  share: 0.6\n", ""));
    Scenario counted =
        parse(
            GOOD.replace("load:\n  capacity: 8s\n  share: 0.6\n", "")
                .replace("duration: 40s", "requests: 100")
                .replace("  - at: 30s", "  - at: 0s")
                .replace("  - at: 20s", "  - at: 0s")
                .replace("  - at: 10s", "  - at: 0s"));

    assertThat(timed.load())
        .isEqualTo(new Scenario.Load(Duration.ofSeconds(10), Duration.ofSeconds(10), 0.6));
    assertThat(untold.load())
        .isEqualTo(new Scenario.Load(Duration.ofSeconds(10), Duration.ofSeconds(10), 0.5));
    assertThat(counted.load()).isEqualTo(Scenario.Load.FLAT_OUT);
    assertThatThrownBy(() -> parse(GOOD.replace("duration: 40s", "requests: 100")))
        .hasMessageStartingWith("test.yml: load.capacity: needs a load bounded by duration");
  }

  @Test
  void aStoppedPostgresMustBeStartedAgainBeforeTheEnd() {
    String stopped =
        GOOD.replace("    action: db-latency\n    latency: 50ms\n", "    action: stop-postgres\n");
    assertThatThrownBy(() -> parse(stopped))
        .isInstanceOf(ScenarioException.class)
        .hasMessage("test.yml: faults[2].action: stop-postgres needs a start-postgres after it");

    Scenario restarted = parse(stopped + "  - at: 35s\n    action: start-postgres\n");
    assertThat(restarted.faults())
        .extracting(Scenario.Fault::action)
        .endsWith(FaultAction.STOP_POSTGRES, FaultAction.START_POSTGRES);
  }

  @Test
  void aPartitionNamesTheShopItCutsOff() {
    Scenario cut = parse(GOOD.replace("    action: restart\n", "    action: partition\n"));

    assertThat(cut.faults().get(1))
        .isEqualTo(
            new Scenario.Fault(Duration.ofSeconds(20), FaultAction.PARTITION, 2, Duration.ZERO));
    assertThatThrownBy(
            () ->
                parse(
                    GOOD.replace(
                        "    action: db-latency\n    latency: 50ms\n", "    action: partition\n")))
        .isInstanceOf(ScenarioException.class)
        .hasMessage("test.yml: faults[2].instance: is required");
  }

  @Test
  void refusesAMissingRequiredField() {
    assertThatThrownBy(() -> parse(GOOD.replace("users: 10\n", "")))
        .isInstanceOf(ScenarioException.class)
        .hasMessage("test.yml: users: is required");
  }

  @Test
  void refusesFaultsOnTheEmbeddedBackend() {
    String yaml =
        GOOD.replace("backend: services", "backend: embedded")
            .replace("instances: 3", "instances: 1")
            .replace("instance: 2", "instance: 1");

    assertThatThrownBy(() -> parse(yaml))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("test.yml: faults[0].action: backend embedded takes no faults");
  }

  @Test
  void refusesSomethingThatIsNotYaml() {
    assertThatThrownBy(() -> parse("name: [unclosed"))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("test.yml: not valid YAML");
  }
}
