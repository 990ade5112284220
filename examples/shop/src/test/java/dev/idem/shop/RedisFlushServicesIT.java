package dev.idem.shop;

import org.junit.jupiter.api.AfterAll;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/** {@link RedisLossTests} on PostgreSQL, with the shop on a redis-server of its own. */
@ActiveProfiles("services")
@TestPropertySource(locations = "classpath:services-it.properties")
@DirtiesContext
class RedisFlushServicesIT extends RedisLossTests {

  static {
    ServicesDatabase.recreateOnce();
  }

  private static final PrivateRedis REDIS = PrivateRedis.start();

  @DynamicPropertySource
  static void privateRedis(DynamicPropertyRegistry registry) {
    registry.add("shop.redis.url", REDIS::url);
  }

  @AfterAll
  static void stopRedis() {
    REDIS.stop();
  }

  @Override
  PrivateRedis redis() {
    return REDIS;
  }
}
