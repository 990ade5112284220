package dev.idem.core.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.IdempotencyException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OptimisticRetryTest {

  private final RecordingSleeper sleeper = new RecordingSleeper();
  private final AtomicInteger calls = new AtomicInteger();

  private OptimisticRetry retry(int maxAttempts) {
    return OptimisticRetry.custom()
        .maxAttempts(maxAttempts)
        .baseDelay(Duration.ofMillis(5))
        .maxDelay(Duration.ofMillis(30))
        .random(EdgeRandom.top())
        .sleeper(sleeper)
        .build();
  }

  /** An attempt that loses {@code losses} races, then returns how many calls it took. */
  private Attempt<Integer> winsAfter(int losses) {
    return () -> {
      int call = calls.incrementAndGet();
      return call > losses ? Optional.of(call) : Optional.empty();
    };
  }

  @AfterEach
  void clearInterruptFlag() {
    Thread.interrupted();
  }

  @Test
  void returnsTheFirstAttemptsResultWithoutBackingOff() {
    assertThat(retry(5).execute(winsAfter(0))).isEqualTo(1);
    assertThat(calls).hasValue(1);
    assertThat(sleeper.delays()).isEmpty();
  }

  @Test
  void retriesLostRacesUntilAnAttemptWins() {
    assertThat(retry(5).execute(winsAfter(3))).isEqualTo(4);
    assertThat(calls).hasValue(4);
    assertThat(sleeper.delays())
        .containsExactly(Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(20));
  }

  @Test
  void capsEachDelayAtTheMaximum() {
    retry(7).execute(winsAfter(6));

    assertThat(sleeper.delays())
        .containsExactly(
            Duration.ofMillis(5),
            Duration.ofMillis(10),
            Duration.ofMillis(20),
            Duration.ofMillis(30),
            Duration.ofMillis(30),
            Duration.ofMillis(30));
  }

  @Test
  void throwsTheTypedExceptionWithTheAttemptCountWhenEveryAttemptLoses() {
    assertThatThrownBy(() -> retry(4).execute(winsAfter(Integer.MAX_VALUE)))
        .isInstanceOf(OptimisticRetryExhaustedException.class)
        .isInstanceOf(IdempotencyException.class)
        .hasMessageContaining("4 attempts")
        .extracting(e -> ((OptimisticRetryExhaustedException) e).attempts())
        .isEqualTo(4);
    assertThat(calls).hasValue(4);
    assertThat(sleeper.delays()).as("no delay after the last attempt").hasSize(3);
  }

  @Test
  void makesExactlyOneAttemptWhenMaxAttemptsIsOne() {
    assertThatThrownBy(() -> retry(1).execute(winsAfter(1)))
        .isInstanceOf(OptimisticRetryExhaustedException.class);
    assertThat(calls).hasValue(1);
    assertThat(sleeper.delays()).isEmpty();
  }

  @Test
  void propagatesAnExceptionFromTheAttemptAtOnceWithoutRetrying() {
    IllegalStateException insufficient = new IllegalStateException("insufficient balance");
    Attempt<Integer> failing =
        () -> {
          if (calls.incrementAndGet() == 2) {
            throw insufficient;
          }
          return Optional.empty();
        };

    assertThatThrownBy(() -> retry(5).execute(failing)).isSameAs(insufficient);
    assertThat(calls).hasValue(2);
    assertThat(sleeper.delays()).hasSize(1);
  }

  @Test
  void restoresTheInterruptFlagAndThrowsWhenInterruptedWhileBackingOff() {
    OptimisticRetry retry =
        OptimisticRetry.custom()
            .sleeper(
                duration -> {
                  throw new InterruptedException("stop");
                })
            .build();

    assertThatThrownBy(() -> retry.execute(winsAfter(3)))
        .isInstanceOf(OptimisticRetryInterruptedException.class)
        .isInstanceOf(IdempotencyException.class)
        .hasCauseInstanceOf(InterruptedException.class)
        .extracting(e -> ((OptimisticRetryInterruptedException) e).attempts())
        .isEqualTo(1);
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(calls).hasValue(1);
  }

  @Test
  void theDefaultSleeperStopsAtOnceForAnAlreadyInterruptedThread() {
    OptimisticRetry retry =
        OptimisticRetry.custom()
            .baseDelay(Duration.ofSeconds(1))
            .maxDelay(Duration.ofSeconds(1))
            .random(EdgeRandom.top())
            .build();
    Thread.currentThread().interrupt();

    assertThatThrownBy(() -> retry.execute(winsAfter(3)))
        .isInstanceOf(OptimisticRetryInterruptedException.class);
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }

  @Test
  void rejectsAnAttemptThatReturnsNull() {
    assertThatThrownBy(() -> retry(3).execute(() -> null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("an attempt must return an Optional, not null");
  }

  @Test
  void doesNotSleepOrDrawWhenAttemptsWin() {
    OptimisticRetry retry =
        OptimisticRetry.custom().random(EdgeRandom.bottom()).sleeper(sleeper).build();

    assertThat(retry.execute(() -> Optional.of("done"))).isEqualTo("done");
    assertThat(sleeper.delays()).isEmpty();
  }
}
