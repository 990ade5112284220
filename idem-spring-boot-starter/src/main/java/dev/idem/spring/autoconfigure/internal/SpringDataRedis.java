package dev.idem.spring.autoconfigure.internal;

import io.lettuce.core.AbstractRedisClient;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Spring Data Redis's Lettuce client; loaded only when Spring Data Redis is present. */
final class SpringDataRedis {

  private SpringDataRedis() {}

  /** The started factory's native client, or null without a single Lettuce connection factory. */
  static @Nullable AbstractRedisClient nativeClient(ListableBeanFactory beans) {
    LettuceConnectionFactory factory = factory(beans);
    if (factory == null) {
      return null;
    }
    if (!factory.isRunning()) {
      factory.start();
    }
    return factory.getRequiredNativeClient();
  }

  static int database(ListableBeanFactory beans) {
    LettuceConnectionFactory factory = factory(beans);
    return factory == null ? 0 : factory.getDatabase();
  }

  private static @Nullable LettuceConnectionFactory factory(ListableBeanFactory beans) {
    return beans.getBeanProvider(LettuceConnectionFactory.class).getIfUnique();
  }
}
