package dev.idem.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.ClaimRequest;
import dev.idem.core.ClaimResult;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.Outcome;
import dev.idem.core.ResultCodec;
import dev.idem.core.StoreFullException;
import dev.idem.testsupport.servers.PrivateRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Redis out of memory ({@code maxmemory} with {@code noeviction}, on a private server) is a full
 * store, not a store that is down: new keys get {@link StoreFullException}, and fail open never
 * runs the work unguarded.
 */
class RedisStoreFullIT {

  private static PrivateRedis server;
  private static RedisClient client;
  private static RedisIdempotencyStore store;

  @BeforeAll
  static void fillAServer() {
    server = PrivateRedis.start("--maxmemory", "3mb", "--maxmemory-policy", "noeviction");
    client = RedisClient.create(server.url());
    store = RedisIdempotencyStore.create(client);
    byte[] outcome = new byte[8 * 1024];
    boolean room = true;
    int refusedInARow = 0;
    // Full once claims are refused many times in a row: a single refusal may sit at the edge,
    // where the memory a command held for a moment comes back after it.
    for (int i = 0; i < 100_000 && refusedInARow < 50; i++) {
      ClaimResult claimed;
      try {
        claimed =
            store.claim(
                ClaimRequest.of(
                    IdempotencyKey.of("fill", "k" + i), Fingerprint.NONE, Duration.ofMinutes(5)));
        refusedInARow = 0;
      } catch (StoreFullException full) {
        refusedInARow++;
        continue;
      }
      try {
        if (room) {
          store.complete(
              ((ClaimResult.Claimed) claimed).lease(),
              Outcome.success(outcome),
              Duration.ofHours(1));
        }
      } catch (StoreFullException noRoomForOutcomes) {
        room = false; // go on with small claims until they are refused
      }
    }
    if (refusedInARow >= 50) {
      return;
    }
    throw new IllegalStateException("3 MB of Redis never filled up");
  }

  @AfterAll
  static void stop() {
    store.close();
    client.shutdown();
    server.close();
  }

  @Test
  void aNewKeyIsRefusedAsStoreFull() {
    assertThatThrownBy(
            () ->
                store.claim(
                    ClaimRequest.of(
                        IdempotencyKey.of("fill", "one-more"),
                        Fingerprint.NONE,
                        Duration.ofMinutes(5))))
        .isInstanceOf(StoreFullException.class)
        .hasMessageContaining("out of memory");
  }

  @Test
  void failOpenDoesNotRunTheWorkOfAKeyAFullStoreRefused() {
    AtomicInteger runs = new AtomicInteger();
    IdempotencyConfig open = IdempotencyConfig.custom().failOpen(true).build();
    try (Idempotency engine = Idempotency.builder(store).build()) {
      assertThatThrownBy(
              () ->
                  engine.execute(
                      IdempotencyKey.of("fill", "unguarded?"),
                      Fingerprint.NONE,
                      ResultCodec.utf8(),
                      ctx -> "ran " + runs.incrementAndGet(),
                      open))
          .isInstanceOf(StoreFullException.class);
    }
    assertThat(runs).hasValue(0);
  }
}
