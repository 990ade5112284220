package dev.idem.core.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OptimisticRetryConfigTest {

  @Test
  void defaultsAreTheNamedConstants() {
    OptimisticRetry retry = OptimisticRetry.ofDefaults();

    assertThat(retry.maxAttempts()).isEqualTo(OptimisticRetry.DEFAULT_MAX_ATTEMPTS).isEqualTo(5);
    assertThat(retry.baseDelay()).isEqualTo(OptimisticRetry.DEFAULT_BASE_DELAY);
    assertThat(retry.maxDelay()).isEqualTo(OptimisticRetry.DEFAULT_MAX_DELAY);
  }

  @Test
  void customSettingsAreKept() {
    OptimisticRetry retry =
        OptimisticRetry.custom()
            .maxAttempts(9)
            .baseDelay(Duration.ofMillis(2))
            .maxDelay(Duration.ofSeconds(1))
            .build();

    assertThat(retry.maxAttempts()).isEqualTo(9);
    assertThat(retry.baseDelay()).isEqualTo(Duration.ofMillis(2));
    assertThat(retry.maxDelay()).isEqualTo(Duration.ofSeconds(1));
    assertThat(retry)
        .hasToString("OptimisticRetry[maxAttempts=9, baseDelay=PT0.002S, maxDelay=PT1S]");
  }

  @Test
  void fromCopiesEverySettingIncludingTheSleeperAndRandom() {
    RecordingSleeper sleeper = new RecordingSleeper();
    OptimisticRetry base =
        OptimisticRetry.custom()
            .maxAttempts(3)
            .baseDelay(Duration.ofMillis(7))
            .maxDelay(Duration.ofMillis(50))
            .random(EdgeRandom.top())
            .sleeper(sleeper)
            .build();

    OptimisticRetry copy = OptimisticRetry.from(base).maxAttempts(2).build();
    int[] calls = {0};
    copy.execute(() -> ++calls[0] == 2 ? Optional.of(true) : Optional.empty());

    assertThat(copy.maxAttempts()).isEqualTo(2);
    assertThat(copy.baseDelay()).isEqualTo(Duration.ofMillis(7));
    assertThat(copy.maxDelay()).isEqualTo(Duration.ofMillis(50));
    assertThat(sleeper.delays()).containsExactly(Duration.ofMillis(7));
    assertThat(base.maxAttempts()).as("the base is unchanged").isEqualTo(3);
  }

  @Test
  void rejectsFewerThanOneAttempt() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> OptimisticRetry.custom().maxAttempts(0).build())
        .withMessage("maxAttempts must be at least 1, was 0");
  }

  @Test
  void rejectsANegativeBaseDelay() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> OptimisticRetry.custom().baseDelay(Duration.ofMillis(-1)).build())
        .withMessage("baseDelay must not be negative, was PT-0.001S");
  }

  @Test
  void rejectsAMaxDelayBelowTheBaseDelay() {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                OptimisticRetry.custom()
                    .baseDelay(Duration.ofMillis(10))
                    .maxDelay(Duration.ofMillis(9))
                    .build())
        .withMessage("maxDelay must be at least baseDelay (PT0.01S), was PT0.009S");
  }

  @Test
  void rejectsAMaxDelayTooLongToCountInNanoseconds() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> OptimisticRetry.custom().maxDelay(Duration.ofDays(300 * 365)).build())
        .withMessageStartingWith("maxDelay must fit in 2^63-1 nanoseconds");
  }

  @Test
  void acceptsAZeroBaseDelayForImmediateRetries() {
    RecordingSleeper sleeper = new RecordingSleeper();
    OptimisticRetry retry =
        OptimisticRetry.custom()
            .baseDelay(Duration.ZERO)
            .maxDelay(Duration.ZERO)
            .random(EdgeRandom.top())
            .sleeper(sleeper)
            .build();
    int[] calls = {0};

    retry.execute(() -> ++calls[0] == 3 ? Optional.of(true) : Optional.empty());

    assertThat(sleeper.delays()).containsExactly(Duration.ZERO, Duration.ZERO);
  }

  @Test
  void rejectsNullSettingsAtOnce() {
    OptimisticRetryBuilder builder = OptimisticRetry.custom();

    assertThatNullPointerException().isThrownBy(() -> builder.baseDelay(null));
    assertThatNullPointerException().isThrownBy(() -> builder.maxDelay(null));
    assertThatNullPointerException().isThrownBy(() -> builder.random(null));
    assertThatNullPointerException().isThrownBy(() -> builder.sleeper(null));
    assertThatNullPointerException().isThrownBy(() -> OptimisticRetry.from(null));
    assertThatNullPointerException().isThrownBy(() -> OptimisticRetry.ofDefaults().execute(null));
  }
}
