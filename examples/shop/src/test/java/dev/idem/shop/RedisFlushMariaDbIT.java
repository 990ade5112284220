package dev.idem.shop;

import dev.idem.testsupport.servers.ClosedAfterAll;
import dev.idem.testsupport.servers.PrivateRedis;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/** {@link RedisLossTests} on MariaDB, with the shop on a redis-server of its own. */
@ActiveProfiles({"services", "mariadb"})
@TestPropertySource(locations = "classpath:mariadb-it.properties")
@DirtiesContext
class RedisFlushMariaDbIT extends RedisLossTests {

  static {
    ServicesDatabase.recreateMariaDbOnce();
  }

  // Stops after the Spring context closes (see ClosedAfterAll).
  @RegisterExtension
  static final ClosedAfterAll<PrivateRedis> REDIS = ClosedAfterAll.of(PrivateRedis.start());

  @DynamicPropertySource
  static void privateRedis(DynamicPropertyRegistry registry) {
    registry.add("shop.redis.url", REDIS.get()::url);
  }

  @Override
  PrivateRedis redis() {
    return REDIS.get();
  }
}
