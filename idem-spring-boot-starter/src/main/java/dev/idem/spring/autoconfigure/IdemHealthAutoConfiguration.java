package dev.idem.spring.autoconfigure;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.health.IdempotencyStoreHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code idem} health indicator (an {@link IdempotencyStoreHealthIndicator} on the store bean)
 * when Spring Boot's health module is on the class path; off with {@code
 * management.health.idem.enabled=false}.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(IdempotencyStore.class)
@ConditionalOnEnabledHealthIndicator("idem")
public class IdemHealthAutoConfiguration {

  /**
   * The {@code idem} indicator on the application's store; an application bean of the same name
   * replaces it.
   *
   * @param store the store whose health is reported
   * @return an {@link IdempotencyStoreHealthIndicator} on {@code store}
   */
  @Bean
  @ConditionalOnMissingBean(name = "idemHealthIndicator")
  public HealthIndicator idemHealthIndicator(IdempotencyStore store) {
    return new IdempotencyStoreHealthIndicator(store);
  }
}
