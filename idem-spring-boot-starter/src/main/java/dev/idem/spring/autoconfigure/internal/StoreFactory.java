package dev.idem.spring.autoconfigure.internal;

import dev.idem.core.IdempotencyStore;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.IdemProperties.StoreType;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Builds the store named by {@code idem.store}, or picks one: Redis when a Lettuce {@code
 * RedisClient} bean exists, else JDBC when a {@code DataSource} bean exists, else memory. The JDBC
 * and Redis classes are touched only when their modules are on the classpath.
 */
public final class StoreFactory {

  private static final String REDIS_CLIENT = "io.lettuce.core.RedisClient";
  private static final String REDIS_STORE = "dev.idem.redis.RedisIdempotencyStore";
  private static final String DATA_SOURCE = "javax.sql.DataSource";
  private static final String JDBC_STORE = "dev.idem.jdbc.JdbcIdempotencyStore";

  private StoreFactory() {}

  /** The store for {@code properties}, built from beans of {@code beans}. */
  public static IdempotencyStore create(IdemProperties properties, ListableBeanFactory beans) {
    ClassLoader loader = StoreFactory.class.getClassLoader();
    StoreType type = properties.getStore() == null ? StoreType.AUTO : properties.getStore();
    if (type == StoreType.AUTO) {
      type = pick(beans, loader);
    }
    return switch (type) {
      case REDIS -> RedisStores.create(beans, properties.getRedis());
      case JDBC ->
          JdbcStores.create(
              beans, properties.getJdbc(), properties.getHttp().getMaxBodyBytes().toBytes());
      default -> memory(properties.getMemory());
    };
  }

  private static InMemoryIdempotencyStore memory(IdemProperties.Memory bounds) {
    return new InMemoryIdempotencyStore(
        java.time.Clock.systemUTC(), bounds.getMaxEntries(), bounds.getMaxBytes().toBytes());
  }

  private static StoreType pick(ListableBeanFactory beans, ClassLoader loader) {
    if (present(REDIS_CLIENT, loader)
        && present(REDIS_STORE, loader)
        && RedisStores.clientExists(beans)) {
      return StoreType.REDIS;
    }
    if (present(DATA_SOURCE, loader)
        && present(JDBC_STORE, loader)
        && JdbcStores.dataSourceExists(beans)) {
      return StoreType.JDBC;
    }
    return StoreType.MEMORY;
  }

  private static boolean present(String className, ClassLoader loader) {
    return ClassUtils.isPresent(className, loader);
  }
}
