package dev.idem.spring.autoconfigure.internal;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.IdemProperties.StoreType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Builds the store that the configurations of {@code IdemStoreConfigurations} chose, and says once
 * at start-up which one it is and on what. The JDBC and Redis classes are touched only when their
 * modules are on the classpath.
 */
public final class StoreFactory {

  private static final Logger log = LoggerFactory.getLogger(StoreFactory.class);
  private static final String REDIS_STORE = "dev.idem.redis.RedisIdempotencyStore";
  private static final String JDBC_STORE = "dev.idem.jdbc.JdbcIdempotencyStore";
  private static final String DATA_SOURCE = "javax.sql.DataSource";
  private static final String SPRING_DATA_REDIS =
      "org.springframework.data.redis.connection.RedisConnectionFactory";

  private StoreFactory() {}

  /** The Redis store on the application's Lettuce client or Spring Data Redis's connection. */
  public static IdempotencyStore redis(IdemProperties properties, ListableBeanFactory beans) {
    RedisStores.Built built = RedisStores.create(beans, properties.getRedis());
    RedisStores.requireAcksWithinClaims(properties);
    log.info(
        "Idem stores its records in Redis, {}, under keys that start with '{}'; a claim waits"
            + " for Redis at most half its lease, any other call {} (the client's command"
            + " timeout, at most 10 s), and a claim answered after half its lease is refused",
        built.source(),
        properties.getRedis().getKeyPrefix(),
        ((dev.idem.redis.RedisIdempotencyStore) built.store()).callTimeout());
    return built.store();
  }

  /** The JDBC store on the application's DataSource. */
  public static IdempotencyStore jdbc(IdemProperties properties, ListableBeanFactory beans) {
    return jdbc(properties, beans, "idem.store");
  }

  /**
   * The JDBC store on the application's DataSource, which {@code property} asked for.
   *
   * @throws StoreUnavailableException when the application has no DataSource
   */
  public static IdempotencyStore jdbc(
      IdemProperties properties, ListableBeanFactory beans, String property) {
    if (!JdbcStores.dataSourceExists(beans)) {
      throw new StoreUnavailableException(
          property + " is jdbc, but the application has no DataSource.",
          "Add org.springframework.boot:spring-boot-starter-jdbc with your database's driver and"
              + " set spring.datasource.url, or define a DataSource bean.");
    }
    IdempotencyStore store =
        JdbcStores.create(
            beans, properties.getJdbc(), properties.getHttp().getMaxBodyBytes().toBytes());
    log.info(
        "Idem stores its records{} in the table {} of the application's DataSource; a call waits"
            + " for the database at most {} (idem.jdbc.call-timeout), whatever the driver's socket"
            + " timeout, and a claim answered after half its lease is refused",
        property.equals("idem.store") ? "" : " (" + property + ")",
        properties.getJdbc().getTable(),
        properties.getJdbc().getCallTimeout());
    warnIfMissing(beans, SPRING_DATA_REDIS, REDIS_STORE, "dev.idem:idem-redis", "Redis");
    return store;
  }

  /**
   * Memory when {@code idem.store} is auto or memory; a {@link StoreUnavailableException} when it
   * names a store whose module is missing.
   */
  public static IdempotencyStore fallback(IdemProperties properties, ListableBeanFactory beans) {
    StoreType type = properties.getStore() == null ? StoreType.AUTO : properties.getStore();
    if (type == StoreType.REDIS) {
      throw missingModule("redis", "dev.idem:idem-redis");
    }
    if (type == StoreType.JDBC) {
      throw missingModule("jdbc", "dev.idem:idem-jdbc");
    }
    warnIfMissing(beans, SPRING_DATA_REDIS, REDIS_STORE, "dev.idem:idem-redis", "Redis");
    warnIfMissing(beans, DATA_SOURCE, JDBC_STORE, "dev.idem:idem-jdbc", "a DataSource");
    IdemProperties.Memory bounds = properties.getMemory();
    log.info(
        "Idem stores its records in memory: they are lost at restart, and several instances of"
            + " this application do not see each other's keys");
    return new InMemoryIdempotencyStore(
        java.time.Clock.systemUTC(), bounds.getMaxEntries(), bounds.getMaxBytes().toBytes());
  }

  private static StoreUnavailableException missingModule(String store, String module) {
    return new StoreUnavailableException(
        "idem.store is " + store + ", but " + module + " is not on the classpath.",
        "Add the dependency " + module + " (the version of idem-spring-boot-starter).");
  }

  private static void warnIfMissing(
      ListableBeanFactory beans, String beanType, String store, String module, String what) {
    ClassLoader loader =
        beans instanceof ConfigurableBeanFactory configurable
                && configurable.getBeanClassLoader() != null
            ? configurable.getBeanClassLoader()
            : StoreFactory.class.getClassLoader();
    if (!ClassUtils.isPresent(store, loader) && StoreChoice.beanExists(beans, loader, beanType)) {
      log.warn(
          "The application has {} but Idem does not use it: add {} to store Idem's records there",
          what,
          module);
    }
  }
}
