package dev.idem.spring.autoconfigure.internal;

import dev.idem.core.IdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.spring.IdemProperties;
import io.lettuce.core.RedisClient;
import org.springframework.beans.factory.ListableBeanFactory;

/** The Redis store on the application's Lettuce client; loaded only when idem-redis is present. */
final class RedisStores {

  private RedisStores() {}

  static boolean clientExists(ListableBeanFactory beans) {
    return beans.getBeanNamesForType(RedisClient.class, false, false).length > 0;
  }

  static IdempotencyStore create(ListableBeanFactory beans, IdemProperties.Redis properties) {
    return RedisIdempotencyStore.create(
        beans.getBean(RedisClient.class), properties.getKeyPrefix());
  }
}
