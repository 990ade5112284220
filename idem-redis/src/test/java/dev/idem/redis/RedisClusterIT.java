package dev.idem.redis;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.lock.LockProvider;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.redis.internal.RedisKeys;
import dev.idem.testsupport.servers.PrivateRedisCluster;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store, token, engine and lock contracts on a Redis Cluster of three primaries: the one named
 * by {@code IDEM_REDIS_CLUSTER_URI}, or else one this class starts on free local ports.
 */
class RedisClusterIT extends RedisBackendTests {

  private static PrivateRedisCluster harness;
  private static RedisClusterClient client;
  private static RedisIdempotencyStore store;
  private static RedisLockProvider locks;
  private static RedisResumeLog resumeLog;

  @BeforeAll
  static void startCluster() throws Exception {
    String seed = RedisTestServers.CLUSTER_URI;
    if (seed == null) {
      harness = PrivateRedisCluster.start();
      seed = harness.seedUrl();
    }
    client = RedisTestServers.clusterClient(seed);
    store = RedisIdempotencyStore.create(client);
    locks = RedisLockProvider.create(client);
    resumeLog = RedisResumeLog.create(client);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    try {
      if (locks != null) {
        locks.close();
      }
      if (resumeLog != null) {
        resumeLog.close();
      }
      if (store != null) {
        store.close();
      }
      if (client != null) {
        client.shutdown();
      }
    } finally {
      if (harness != null) {
        harness.close();
      }
    }
  }

  @Test
  void aClusterThatStopsAnsweringIsAStoreFailure() {
    assumeTrue(harness != null, "only on the cluster these tests started");
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "k");
    ClaimRequest request = ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30));
    RedisClusterClient impatient =
        RedisTestServers.clusterClient(harness.seedUrl(), Duration.ofSeconds(1));
    try (RedisIdempotencyStore slow = RedisIdempotencyStore.create(impatient);
        StatefulRedisClusterConnection<String, String> admin = client.connect()) {
      // Paused well beyond the client's timeout, so that a loaded machine cannot blur the two.
      admin.sync().upstream().commands().clientPause(4_000);
      assertThatThrownBy(() -> now(slow.claim(request)))
          .isInstanceOf(IdempotencyStoreException.class)
          .hasRootCauseInstanceOf(RedisCommandTimeoutException.class);
    } finally {
      impatient.shutdown();
    }
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () -> assertThat(now(store.claim(request))).isInstanceOf(ClaimResult.Claimed.class));
  }

  // On the nodes this class started only: SCRIPT FLUSH empties every client's script cache, which a
  // shared server must not have done to it.
  @Test
  void scriptsAreSentAgainWhenRedisForgotThem() {
    assumeTrue(harness != null, "only on the cluster these tests started");
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "k");
    Lease lease =
        ((ClaimResult.Claimed)
                now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30)))))
            .lease();
    try (StatefulRedisClusterConnection<String, String> admin = client.connect()) {
      admin.sync().upstream().commands().scriptFlush();
    }
    assertThat(now(store.complete(lease, Outcome.success(new byte[] {1}), Duration.ofMinutes(1))))
        .isTrue();
  }

  @Override
  IdempotencyStore store() {
    return store;
  }

  @Override
  IdempotencyStore storeOnClock(Clock clock) {
    return RedisIdempotencyStore.create(client, RedisKeys.DEFAULT_PREFIX, clock);
  }

  @Override
  LockProvider locks() {
    return locks;
  }

  @Override
  Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
    return ClusterStoreFactory.class;
  }

  @Override
  ResumeLog resumeLog() {
    return resumeLog;
  }

  @Override
  boolean completerSuite() {
    return false;
  }
}
