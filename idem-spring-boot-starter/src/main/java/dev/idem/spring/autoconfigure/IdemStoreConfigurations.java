package dev.idem.spring.autoconfigure;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.ExpiredRecordsPurge;
import dev.idem.spring.IdemJdbcProperties;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.IdemThreads;
import dev.idem.spring.autoconfigure.internal.StoreChoice;
import dev.idem.spring.autoconfigure.internal.StoreFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * One configuration per store, tried in this order by {@link IdemAutoConfiguration}: Redis, then
 * JDBC, then memory, each only while no {@link IdempotencyStore} bean exists (an application's own
 * store wins). Each names in {@code /actuator/conditions} why it was or was not used.
 */
final class IdemStoreConfigurations {

  private IdemStoreConfigurations() {}

  /** The Redis store, when idem-redis is present and Redis is named or found. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.idem.redis.RedisIdempotencyStore")
  @ConditionalOnMissingBean(IdempotencyStore.class)
  @Conditional(StoreChoice.Redis.class)
  static class Redis {
    @Bean
    IdempotencyStore idempotencyStore(IdemProperties properties, ListableBeanFactory beans) {
      return StoreFactory.redis(properties, beans);
    }
  }

  /**
   * The JDBC store, when idem-jdbc is present and JDBC is named or a DataSource found, and its
   * scheduled purge of expired records.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.idem.jdbc.JdbcIdempotencyStore")
  @ConditionalOnMissingBean(IdempotencyStore.class)
  @Conditional(StoreChoice.Jdbc.class)
  static class Jdbc {
    // Flyway or Liquibase, when the application has them, runs first: it may create the table.
    @Bean
    @DependsOnDatabaseInitialization
    IdempotencyStore idempotencyStore(IdemProperties properties, ListableBeanFactory beans) {
      return StoreFactory.jdbc(properties, beans);
    }

    @Bean
    @ConditionalOnProperty(name = "idem.jdbc.cleanup.enabled", matchIfMissing = true)
    ExpiredRecordsPurge idemExpiredRecordsPurge(
        IdempotencyStore store, IdemProperties properties, IdemThreads threads) {
      IdemJdbcProperties.Cleanup cleanup = properties.getJdbc().getCleanup();
      return new ExpiredRecordsPurge(
          store,
          new ExpiredRecordsPurge.Schedule(
              cleanup.getInterval(), cleanup.getBatchSize(), cleanup.getMaxBatches()),
          threads);
    }
  }

  /**
   * Memory, when nothing else was built; or the refusal of a store that {@code idem.store} names
   * but whose module is missing.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(IdempotencyStore.class)
  static class Fallback {
    @Bean
    IdempotencyStore idempotencyStore(IdemProperties properties, ListableBeanFactory beans) {
      return StoreFactory.fallback(properties, beans);
    }
  }
}
