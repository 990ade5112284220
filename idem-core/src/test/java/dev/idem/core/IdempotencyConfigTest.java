package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdempotencyConfigTest {

  @Test
  void defaultsAreTheNamedConstants() {
    IdempotencyConfig config = IdempotencyConfig.ofDefaults();
    assertThat(config.lease()).isEqualTo(IdempotencyConfig.DEFAULT_LEASE);
    assertThat(config.retention()).isEqualTo(IdempotencyConfig.DEFAULT_RETENTION);
    assertThat(config.inProgressPolicy()).isEqualTo(InProgressPolicy.REJECT);
    assertThat(config.failOpen()).isFalse();
    assertThat(config.watchdog()).isTrue();
    assertThat(config.isTerminal(new IllegalArgumentException())).isFalse();
  }

  @Test
  void derivesFromABaseWithoutChangingIt() {
    IdempotencyConfig base = IdempotencyConfig.custom().lease(Duration.ofSeconds(5)).build();
    IdempotencyConfig waiting =
        IdempotencyConfig.from(base).waitInProgress(Duration.ofSeconds(2)).build();
    assertThat(waiting.lease()).isEqualTo(Duration.ofSeconds(5));
    assertThat(waiting.inProgressPolicy()).isEqualTo(InProgressPolicy.WAIT);
    assertThat(waiting.maxWait()).isEqualTo(Duration.ofSeconds(2));
    assertThat(base.inProgressPolicy()).isEqualTo(InProgressPolicy.REJECT);
  }

  @Test
  void refusesValuesOutOfRangeNamingThem() {
    assertThatThrownBy(() -> IdempotencyConfig.custom().lease(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease");
    assertThatThrownBy(() -> IdempotencyConfig.custom().retention(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("retention");
    assertThatThrownBy(
            () -> IdempotencyConfig.custom().waitInProgress(Duration.ofMillis(-5)).build())
        .hasMessageContaining("maxWait");
    assertThatThrownBy(() -> IdempotencyConfig.custom().completionAttempts(0).build())
        .hasMessageContaining("completionAttempts");
    assertThatThrownBy(() -> IdempotencyConfig.custom().lease(null).build())
        .hasMessageContaining("lease");
  }
}
