package dev.idem.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.ClaimRequest;
import dev.idem.core.ClaimResult;
import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class InMemoryIdempotencyStoreBoundsTest {

  private Instant now = Instant.parse("2026-01-01T00:00:00Z");
  private final Clock clock =
      new Clock() {
        @Override
        public Instant instant() {
          return now;
        }

        @Override
        public java.time.ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }
      };

  @Test
  void refusesNewKeysWhenFullOfLiveRecordsAndNeverEvictsThem() {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 3);
    for (int i = 0; i < 3; i++) {
      complete(store, "k" + i, Duration.ofHours(1));
    }
    assertThatThrownBy(() -> claim(store, "k3"))
        .isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining("full");
    assertThat(claim(store, "k0")).isInstanceOf(ClaimResult.Completed.class);
  }

  @Test
  void makesRoomByDroppingExpiredRecords() {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 3);
    for (int i = 0; i < 3; i++) {
      complete(store, "k" + i, Duration.ofMinutes(1));
    }
    now = now.plus(Duration.ofMinutes(2));
    assertThat(claim(store, "k3")).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(store.size()).isEqualTo(1);
  }

  @Test
  void refusesAnUnusableBound() {
    assertThatThrownBy(() -> new InMemoryIdempotencyStore(clock, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static ClaimResult claim(InMemoryIdempotencyStore store, String value) {
    return store.claim(
        ClaimRequest.of(IdempotencyKey.of("s", value), Fingerprint.NONE, Duration.ofSeconds(30)));
  }

  private static void complete(InMemoryIdempotencyStore store, String value, Duration retention) {
    ClaimResult.Claimed claimed = (ClaimResult.Claimed) claim(store, value);
    store.complete(claimed.lease(), Outcome.success(new byte[0]), retention);
  }
}
