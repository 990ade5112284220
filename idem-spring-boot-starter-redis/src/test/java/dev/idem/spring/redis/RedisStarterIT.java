package dev.idem.spring.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * An application whose only Idem dependency is this starter, configured the Spring Boot way ({@code
 * spring.data.redis.*}, database 7), keeps its records in that Redis database: nothing else to add,
 * no bean to declare.
 */
@SpringBootTest(
    classes = RedisStarterIT.App.class,
    properties = {
      "spring.data.redis.host=127.0.0.1",
      "spring.data.redis.port=6379",
      "spring.data.redis.database=7"
    })
class RedisStarterIT {

  @SpringBootApplication
  static class App {}

  @Autowired IdempotencyStore store;

  @Test
  void theStoreIsRedisOnTheConfiguredDatabase() {
    IdempotencyKey key = IdempotencyKey.of("redis-starter", UUID.randomUUID().toString());

    ClaimResult claimed =
        store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofMinutes(1))).join();

    assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
    assertThat(claimed).isInstanceOf(ClaimResult.Claimed.class);
    RedisClient client = RedisClient.create("redis://127.0.0.1:6379/7");
    try (StatefulRedisConnection<String, String> redis = client.connect()) {
      String record = "idem:{" + key.digest() + "}";
      assertThat(redis.sync().exists(record)).isEqualTo(1L);
      redis.sync().del(record);
    } finally {
      client.shutdown();
    }
  }
}
