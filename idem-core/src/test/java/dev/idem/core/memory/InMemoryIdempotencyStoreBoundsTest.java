package dev.idem.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.StoreFullException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
        .isInstanceOf(StoreFullException.class)
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
  void countsBytesAndRefusesAnOutcomeThatDoesNotFitSoTheEngineKeepsTheKey() {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 1_000, 4_096);
    try (Idempotency engine = Idempotency.builder(store).build()) {
      IdempotencyKey key = IdempotencyKey.of("s", "big");
      String large = "x".repeat(8_000);
      assertThat(engine.call(key, Fingerprint.NONE).run(ctx -> large)).isEqualTo(large);
      assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).run(ctx -> "again"))
          .isInstanceOf(OutcomeNotReplayableException.class);
    }
    assertThatThrownBy(
            () -> {
              for (int i = 0; i < 20; i++) { // about 300 bytes each
                complete(store, "small-" + i, Duration.ofHours(1));
              }
            })
        .isInstanceOf(StoreFullException.class)
        .hasMessageContaining("4096 bytes");
  }

  @Test
  void oneCallerHoldsAQuarterAtMostAcrossItsScopesSoOthersAlwaysFindRoom() {
    // one caller once filled the whole store with 1 MB answers, and every other caller got 429
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 1_000, 40_000);
    Outcome kilobyte = Outcome.success(new byte[1_024]);
    int kept = 0;
    for (int i = 0; i < 60; i++) {
      IdempotencyKey key =
          IdempotencyKey.of(
              IdempotencyKey.scope(i % 2 == 0 ? "POST /a" : "POST /b", "mallory"), "k" + i);
      ClaimResult result;
      try {
        result = claim(store, key);
      } catch (StoreFullException e) {
        assertThat(e).hasMessageContaining("share");
        break;
      }
      try {
        now(store.complete(((ClaimResult.Claimed) result).lease(), kilobyte, Duration.ofHours(1)));
        kept++;
      } catch (OutcomeTooLargeException e) {
        store.complete(
            ((ClaimResult.Claimed) result).lease(), Outcome.unstored(e), Duration.ofHours(1));
      }
    }
    assertThat(kept).isBetween(1, 10);
    for (String caller : new String[] {"alice", "bob", "carol"}) {
      IdempotencyKey key = IdempotencyKey.of(IdempotencyKey.scope("POST /a", caller), "k0");
      ClaimResult.Claimed claimed = (ClaimResult.Claimed) claim(store, key);
      assertThat(now(store.complete(claimed.lease(), kilobyte, Duration.ofHours(1)))).isTrue();
      assertThat(store.find(key).orElseThrow().outcome().payload()).hasSize(1_024);
    }
  }

  @Test
  void aScopeThatNamesNoCallerIsBoundByTheStoresBoundsAlone() {
    // a message consumer's scope holds every message it saw: no caller's share applies to it
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 8);
    for (int i = 0; i < 8; i++) {
      assertThat(claim(store, IdempotencyKey.of("consumer:orders", "m" + i)))
          .isInstanceOf(ClaimResult.Claimed.class);
    }
  }

  @Test
  void failOpenNeverAppliesToAFullStore() {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 1);
    complete(store, "k0", Duration.ofHours(1));
    IdempotencyConfig open = IdempotencyConfig.custom().failOpen(true).build();
    java.util.concurrent.atomic.AtomicInteger runs =
        new java.util.concurrent.atomic.AtomicInteger();
    try (Idempotency engine = Idempotency.builder(store).build()) {
      assertThatThrownBy(
              () ->
                  engine
                      .call(IdempotencyKey.of("s", "k1"), Fingerprint.NONE)
                      .config(open)
                      .run(ctx -> "ran " + runs.incrementAndGet()))
          .isInstanceOf(StoreFullException.class);
    }
    assertThat(runs).hasValue(0);
  }

  @Test
  void refusesAnUnusableBound() {
    assertThatThrownBy(() -> new InMemoryIdempotencyStore(clock, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // each key its own caller, so that only the store's own bounds are reached
  private static ClaimResult claim(InMemoryIdempotencyStore store, String value) {
    return claim(store, IdempotencyKey.of(IdempotencyKey.scope("op", value), value));
  }

  private static ClaimResult claim(InMemoryIdempotencyStore store, IdempotencyKey key) {
    return now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30))));
  }

  private static void complete(InMemoryIdempotencyStore store, String value, Duration retention) {
    ClaimResult.Claimed claimed = (ClaimResult.Claimed) claim(store, value);
    now(store.complete(claimed.lease(), Outcome.success(new byte[0]), retention));
  }

  // the store's answer, or what it failed with, thrown
  private static <V> V now(CompletableFuture<V> stage) {
    try {
      return stage.join();
    } catch (CompletionException e) {
      throw (RuntimeException) e.getCause();
    }
  }
}
