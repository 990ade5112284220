package dev.idem.redis;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.testsupport.servers.PrivateRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplicaAcks} on a private primary with a private replica: a claim counts once the replica
 * has it; with the replica gone a claim is refused and its key left free.
 */
class RedisReplicaAcksIT {

  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  void aClaimCountsOnceTheReplicaHasItAndIsReleasedAndRefusedWithoutIt() {
    try (PrivateRedis primary = PrivateRedis.start();
        PrivateRedis replica =
            PrivateRedis.start("--replicaof", "127.0.0.1", Integer.toString(primary.port()))) {
      RedisClient client = RedisClient.create(primary.url());
      RedisClient onReplica = RedisClient.create(replica.url());
      try (RedisIdempotencyStore acked =
              RedisIdempotencyStore.create(
                  client, "acks:", new ReplicaAcks(1, Duration.ofMillis(300)));
          RedisIdempotencyStore plain = RedisIdempotencyStore.create(client, "acks:");
          var replicaConnection = onReplica.connect()) {
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    replicaConnection.sync().info("replication").contains("master_link_status:up"));

        assertThat(now(acked.claim(request("kept")))).isInstanceOf(ClaimResult.Claimed.class);
        replica.kill();

        assertThatThrownBy(() -> now(acked.claim(request("lost"))))
            .isInstanceOf(IdempotencyStoreException.class)
            .hasMessageContaining("acknowledged by 0 of 1 replicas");
        // the refused claim left the key free; the kept one still holds its key
        assertThat(now(plain.claim(request("lost")))).isInstanceOf(ClaimResult.Claimed.class);
        assertThat(now(plain.claim(request("kept")))).isInstanceOf(ClaimResult.InProgress.class);
      } finally {
        onReplica.shutdown();
        client.shutdown();
      }
    }
  }

  @Test
  void replicaAcksNeedAReplicaAndATimeout() {
    assertThatThrownBy(() -> new ReplicaAcks(0, Duration.ofMillis(100)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ReplicaAcks(1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static ClaimRequest request(String key) {
    return ClaimRequest.of(IdempotencyKey.of("acks", key), Fingerprint.NONE, LEASE);
  }
}
