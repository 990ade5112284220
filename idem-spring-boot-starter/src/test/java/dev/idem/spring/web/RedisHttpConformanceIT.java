package dev.idem.spring.web;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import org.springframework.test.context.TestPropertySource;

/** The HTTP conformance suite on Redis, picked automatically (before JDBC) from the RedisClient. */
@TestPropertySource(properties = {"test.redis=true", "test.postgres=true"})
class RedisHttpConformanceIT extends ServletConformanceTests {

  @Override
  Class<? extends IdempotencyStore> expectedStore() {
    return RedisIdempotencyStore.class;
  }
}
