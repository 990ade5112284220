package dev.idem.testsupport.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateRedisSentinelTest {

  @Test
  void aFailoverPromotesTheReplicaWithWhatItReceived(@TempDir Path dir) {
    try (PrivateRedisSentinel redis = PrivateRedisSentinel.start(dir.toFile())) {
      assertThat(redis.primaryPort()).isEqualTo(redis.firstPrimaryPort());
      assertThat(redis.url()).startsWith("redis-sentinel://127.0.0.1:");
      String set = redis.primary().command("SET replicated yes");
      assertThat(set).startsWith("+OK");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> redis.replica().command("GET replicated").contains("yes"));

      redis.failover();

      assertThat(redis.primaryPort()).isEqualTo(redis.replicaPort());
      assertThat(redis.replica().command("GET replicated")).contains("yes");
      assertThat(redis.replica().command("SET after failover")).startsWith("+OK");
    }
  }
}
