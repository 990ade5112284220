package dev.idem.redis;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.StoreFullException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.testsupport.servers.PrivateRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Redis out of memory ({@code maxmemory} set a megabyte under what it holds, with {@code
 * noeviction}, on a private server) is a full store, not a store that is down: new keys get {@link
 * StoreFullException}, and fail open never runs the work unguarded.
 */
class RedisStoreFullIT {

  private static PrivateRedis server;
  private static RedisClient client;
  private static RedisIdempotencyStore store;

  @BeforeAll
  static void fillAServer() {
    server = PrivateRedis.start("--maxmemory-policy", "noeviction");
    client = RedisClient.create(server.url());
    store = RedisIdempotencyStore.create(client);
    byte[] outcome = new byte[8 * 1024];
    for (int i = 0; i < 256; i++) {
      ClaimResult claimed =
          now(
              store.claim(
                  ClaimRequest.of(
                      IdempotencyKey.of("fill", "k" + i),
                      Fingerprint.NONE,
                      Duration.ofMinutes(5))));
      now(
          store.complete(
              ((ClaimResult.Claimed) claimed).lease(),
              Outcome.success(outcome),
              Duration.ofHours(1)));
    }
    // The limit goes a whole megabyte under what the server holds: memory a command or a client
    // buffer held for a moment and gave back can never bring it under the limit again, as it did
    // when the test filled a server up to its limit and hoped it stayed there.
    try (StatefulRedisConnection<String, String> admin = client.connect()) {
      long used = usedMemory(admin.sync().info("memory"));
      admin.sync().configSet("maxmemory", Long.toString(used - 1024 * 1024));
    }
  }

  private static long usedMemory(String info) {
    return info.lines()
        .filter(line -> line.startsWith("used_memory:"))
        .mapToLong(line -> Long.parseLong(line.substring("used_memory:".length()).trim()))
        .findFirst()
        .orElseThrow();
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
                now(
                    store.claim(
                        ClaimRequest.of(
                            IdempotencyKey.of("fill", "one-more"),
                            Fingerprint.NONE,
                            Duration.ofMinutes(5)))))
        .isInstanceOf(StoreFullException.class)
        .hasMessageContaining("out of memory");
  }

  @Test
  void aCompletionRefusedForMemoryEndsWithTheNotReplayableMarkNeverASecondRun() {
    // the server fills up while the work runs: its result cannot be stored, but the work ran
    AtomicInteger runs = new AtomicInteger();
    IdempotencyKey key = IdempotencyKey.of("fill", "filled-while-running");
    IdempotencyConfig shortLease = IdempotencyConfig.custom().lease(Duration.ofSeconds(1)).build();
    String limit;
    try (StatefulRedisConnection<String, String> admin = client.connect()) {
      limit = admin.sync().configGet("maxmemory").get("maxmemory");
      admin.sync().configSet("maxmemory", "0");
    }
    try (Idempotency engine = Idempotency.builder(store).build()) {
      String first =
          engine
              .call(key, Fingerprint.NONE)
              .config(shortLease)
              .run(
                  ctx -> {
                    try (StatefulRedisConnection<String, String> admin = client.connect()) {
                      admin.sync().configSet("maxmemory", limit);
                    }
                    return "ran " + runs.incrementAndGet() + " " + "x".repeat(64 * 1024);
                  });
      assertThat(first).startsWith("ran 1");
      assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
      assertThat(store.find(key).orElseThrow().outcome().kind()).isEqualTo(Outcome.Kind.UNSTORED);
      await()
          .during(Duration.ofMillis(1500))
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThatThrownBy(
                          () ->
                              engine
                                  .call(key, Fingerprint.NONE)
                                  .config(shortLease)
                                  .run(ctx -> "ran " + runs.incrementAndGet()))
                      .isInstanceOf(OutcomeNotReplayableException.class));
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void failOpenDoesNotRunTheWorkOfAKeyAFullStoreRefused() {
    AtomicInteger runs = new AtomicInteger();
    IdempotencyConfig open = IdempotencyConfig.custom().failOpen(true).build();
    try (Idempotency engine = Idempotency.builder(store).build()) {
      assertThatThrownBy(
              () ->
                  engine
                      .call(IdempotencyKey.of("fill", "unguarded?"), Fingerprint.NONE)
                      .config(open)
                      .run(ctx -> "ran " + runs.incrementAndGet()))
          .isInstanceOf(StoreFullException.class);
    }
    assertThat(runs).hasValue(0);
  }
}
