package dev.idem.spring.aop;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import java.util.UUID;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Bean-method outcomes and the caller's transaction, on Redis (which never joins it). */
class RedisIdempotentMethodTransactionIT extends IdempotentMethodTransactionTests {

  private static final String URL =
      System.getenv().getOrDefault("IDEM_REDIS_URL", "redis://127.0.0.1:6379");

  @Override
  ApplicationContextRunner configure(ApplicationContextRunner runner) {
    return runner
        .withBean(
            RedisClient.class,
            () -> RedisClient.create(URL),
            d -> d.setDestroyMethodName("shutdown"))
        .withPropertyValues("idem.redis.key-prefix=idem-tx-it-" + UUID.randomUUID() + ":");
  }

  @Override
  Class<? extends IdempotencyStore> expectedStore() {
    return RedisIdempotencyStore.class;
  }
}
