package dev.idem.spring.autoconfigure.internal;

import dev.idem.core.IdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.spring.IdemProperties;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The Redis store on the application's Lettuce client (a {@code RedisClient} or {@code
 * RedisClusterClient} bean), else on the native client of Spring Data Redis's {@code
 * LettuceConnectionFactory}, which carries everything {@code spring.data.redis.*} says (Sentinel or
 * Cluster, SSL, database, timeouts, credentials). Loaded only when idem-redis is present.
 */
final class RedisStores {

  private static final String LETTUCE_FACTORY =
      "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

  private RedisStores() {}

  /** A store and where its connection came from. */
  record Built(IdempotencyStore store, String source) {}

  static Built create(ListableBeanFactory beans, IdemProperties.Redis properties) {
    String prefix = properties.getKeyPrefix();
    RedisClient client = beans.getBeanProvider(RedisClient.class).getIfUnique();
    if (client != null) {
      return new Built(RedisIdempotencyStore.create(client, prefix), "on the RedisClient bean");
    }
    RedisClusterClient cluster = beans.getBeanProvider(RedisClusterClient.class).getIfUnique();
    if (cluster != null) {
      return new Built(
          RedisIdempotencyStore.create(cluster, prefix), "on the RedisClusterClient bean");
    }
    if (ClassUtils.isPresent(LETTUCE_FACTORY, RedisStores.class.getClassLoader())) {
      AbstractRedisClient shared = SpringDataRedis.nativeClient(beans);
      if (shared instanceof RedisClusterClient c) {
        return new Built(
            RedisIdempotencyStore.create(c, prefix),
            "on the Redis Cluster of spring.data.redis (the LettuceConnectionFactory's client)");
      }
      if (shared instanceof RedisClient c) {
        return new Built(
            RedisIdempotencyStore.create(c, prefix),
            "on the Redis of spring.data.redis (the LettuceConnectionFactory's client, database "
                + SpringDataRedis.database(beans)
                + ")");
      }
    }
    throw new StoreUnavailableException(
        "idem.store is redis, but the application has no Lettuce connection to Redis.",
        "Add org.springframework.boot:spring-boot-starter-data-redis and set spring.data.redis.*"
            + " (with Lettuce, its default client), or define a RedisClient or RedisClusterClient"
            + " bean.");
  }
}
