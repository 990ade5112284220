package dev.idem.spring.autoconfigure;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.actuate.IdempotencyEndpoint;
import dev.idem.spring.aop.ResumableMethods;
import dev.idem.spring.aop.StepMethods;
import dev.idem.spring.internal.ReplayCaches;
import java.util.Optional;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The Actuator endpoint {@code idempotency} on the application's store, when Actuator is on the
 * class path and the endpoint is available: exposed ({@code
 * management.endpoints.web.exposure.include}) and not switched off ({@code
 * management.endpoint.idempotency.access}), as every endpoint is.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(IdempotencyStore.class)
@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
public class IdemEndpointAutoConfiguration {

  /**
   * The endpoint on the application's store; an application bean of the type replaces it.
   *
   * @param store the store whose records the endpoint reads and gives up
   * @return an {@link IdempotencyEndpoint} on {@code store}
   */
  @Bean
  @ConditionalOnMissingBean
  public IdempotencyEndpoint idempotencyEndpoint(
      IdempotencyStore store,
      ObjectProvider<ResumableMethods> resumables,
      ObjectProvider<StepMethods> steps,
      ObjectProvider<ReplayCaches> replayCaches) {
    ReplayCaches caches = replayCaches.getIfAvailable();
    return new IdempotencyEndpoint(
        // an eviction forgets the record in the replay cache and waits out its window
        caches == null ? store : caches.evictingThrough(store),
        () -> {
          ResumableMethods methods = resumables.getIfAvailable();
          return methods == null ? Optional.empty() : methods.completer();
        },
        () -> {
          StepMethods methods = steps.getIfAvailable();
          return methods == null ? Set.of() : methods.names();
        });
  }
}
