package dev.idem.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdempotencyConfig;
import dev.idem.core.InProgressPolicy;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.Idempotent;
import dev.idem.spring.StartFailures;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @Idempotent}'s durations as strings, the way {@code @Scheduled} takes them: units,
 * placeholders with defaults, the deprecated numeric attributes beside them, and wrong values
 * refused at start-up.
 */
class AnnotationDurationsTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class));

  @Test
  void durationsTakeUnitsAndPlaceholdersWithDefaults() {
    runner
        .withBean(Timed.class)
        .withPropertyValues("payments.lease=45s")
        .run(
            context -> {
              IdemPolicies policies = context.getBean(IdemPolicies.class);
              IdempotencyConfig config =
                  policies.forAnnotation("pay", annotation(Timed.class, "pay"));
              assertThat(config.inProgressPolicy()).isEqualTo(InProgressPolicy.WAIT);
              assertThat(config.maxWait()).isEqualTo(Duration.ofMillis(1500));
              assertThat(config.lease()).isEqualTo(Duration.ofSeconds(45));
              assertThat(config.retention()).isEqualTo(Duration.ofHours(2));
            });
  }

  @Test
  void aWaitOfZeroRefusesADuplicateAtOnce() {
    runner
        .withBean(Timed.class)
        .run(
            context -> {
              IdempotencyConfig config =
                  context
                      .getBean(IdemPolicies.class)
                      .forAnnotation("refuse", annotation(Timed.class, "refuse"));
              assertThat(config.inProgressPolicy()).isEqualTo(InProgressPolicy.REJECT);
            });
  }

  @Test
  @SuppressWarnings("removal")
  void theDeprecatedNumbersStillCount() {
    runner.run(
        context -> {
          IdempotencyConfig config =
              context
                  .getBean(IdemPolicies.class)
                  .forAnnotation("old", annotation(OldStyle.class, "old"));
          assertThat(config.maxWait()).isEqualTo(Duration.ofMillis(250));
          assertThat(config.lease()).isEqualTo(Duration.ofSeconds(7));
        });
  }

  @Test
  void aValueThatIsNoDurationStopsTheStart() {
    runner
        .withBean(Misspelt.class)
        .run(
            context ->
                StartFailures.stoppedTheStart(
                    context,
                    "@Idempotent(lease = \"5 seconds\")",
                    "'5 seconds' is not a duration"));
  }

  @Test
  void aPlaceholderWithoutAValueStopsTheStart() {
    runner
        .withBean(Unresolved.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("payments.nowhere"));
  }

  @Test
  void aDurationBesideItsDeprecatedTwinStopsTheStart() {
    runner
        .withBean(Both.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("set beside the deprecated waitMillis"));
  }

  @Test
  void aNegativeLeaseStopsTheStart() {
    runner
        .withBean(Negative.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("it must be positive"));
  }

  private static Idempotent annotation(Class<?> type, String method) throws Exception {
    return type.getMethod(method, String.class).getAnnotation(Idempotent.class);
  }

  static class Timed {
    @Idempotent(
        key = "#p0",
        waitFor = "1500ms",
        lease = "${payments.lease:30s}",
        retention = "${payments.retention:2h}")
    public String pay(String key) {
      return key;
    }

    @Idempotent(key = "#p0", waitFor = "0")
    public String refuse(String key) {
      return key;
    }
  }

  @SuppressWarnings("removal")
  static class OldStyle {
    @Idempotent(key = "#p0", waitMillis = 250, leaseSeconds = 7)
    public String old(String key) {
      return key;
    }
  }

  static class Misspelt {
    @Idempotent(key = "#p0", lease = "5 seconds")
    public String pay(String key) {
      return key;
    }
  }

  static class Unresolved {
    @Idempotent(key = "#p0", lease = "${payments.nowhere}")
    public String pay(String key) {
      return key;
    }
  }

  @SuppressWarnings("removal")
  static class Both {
    @Idempotent(key = "#p0", waitFor = "2s", waitMillis = 2000)
    public String pay(String key) {
      return key;
    }
  }

  static class Negative {
    @Idempotent(key = "#p0", lease = "-5s")
    public String pay(String key) {
      return key;
    }
  }
}
