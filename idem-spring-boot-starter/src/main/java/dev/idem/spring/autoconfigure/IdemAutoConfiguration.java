package dev.idem.spring.autoconfigure;

import dev.idem.core.Idempotency;
import dev.idem.core.TokenService;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.IdemAsyncProperties;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.IdemThreads;
import dev.idem.spring.IdempotencyPolicyCustomizer;
import dev.idem.spring.IdempotencyStoreDecorator;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.ReactiveIdempotency;
import dev.idem.spring.StoreCallExecutor;
import dev.idem.spring.autoconfigure.internal.Engines;
import dev.idem.spring.internal.ReplayCaches;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The engine beans: {@link IdemPolicies}, the {@link IdempotencyStore} picked by {@code idem.store}
 * (see {@link IdemStoreConfigurations}), {@link Idempotency} (on the store as wrapped by every
 * {@link IdempotencyStoreDecorator}), {@link TokenService}, the {@link InFlightWork} counter and
 * the {@link StoreCallExecutor} of asynchronous calls, and {@link ReactiveIdempotency} when Reactor
 * is on the class path. Each one backs off when the application defines its own. Runs after the
 * DataSource and Redis configurations so that automatic store selection sees their beans.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
      "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
      "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration"
    })
@EnableConfigurationProperties({IdemProperties.class, IdemAsyncProperties.class})
@Import({
  IdemStoreConfigurations.Redis.class,
  IdemStoreConfigurations.Jdbc.class,
  IdemStoreConfigurations.Fallback.class
})
public class IdemAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public IdemPolicies idemPolicies(
      IdemProperties properties,
      ObjectProvider<IdempotencyPolicyCustomizer> customizers,
      Environment environment) {
    return new IdemPolicies(
        properties, customizers.orderedStream().toList(), environment::resolveRequiredPlaceholders);
  }

  /** The local replay cache, when the defaults or a policy turn it on ({@code replay-cache}). */
  @Bean
  @ConditionalOnMissingBean
  @Conditional(ReplayCacheOn.class)
  public ReplayCaches idemReplayCaches(IdemPolicies policies, IdemProperties properties) {
    return new ReplayCaches(policies, properties.getReplayCache());
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public Idempotency idempotency(
      IdempotencyStore store, IdemPolicies policies, ListableBeanFactory beans) {
    return Engines.build(store, policies, beans);
  }

  /** Virtual threads for Idem's own work when {@code spring.threads.virtual.enabled} is on. */
  @Bean
  @ConditionalOnMissingBean
  public IdemThreads idemThreads(Environment environment) {
    return IdemThreads.of(environment);
  }

  @Bean
  @ConditionalOnMissingBean
  public InFlightWork idemInFlightWork() {
    return new InFlightWork();
  }

  /** The threads of the store's calls for futures and reactive results, from {@code idem.async}. */
  @Bean
  @ConditionalOnMissingBean
  public StoreCallExecutor idemStoreCallExecutor(IdemAsyncProperties async, IdemThreads threads) {
    return new StoreCallExecutor(async.getThreads(), async.getQueueCapacity(), threads);
  }

  @Bean
  @ConditionalOnMissingBean
  public TokenService idemTokenService(Idempotency idempotency, IdemProperties properties) {
    IdemProperties.Tokens tokens = properties.getTokens();
    return new TokenService(
        idempotency,
        tokens.getTtl(),
        tokens.isReplayUsed(),
        cap(tokens.getMaxPerCaller()),
        tokens.getMaxIssuedPerSecond());
  }

  /** {@link ReactiveIdempotency}, for applications with Reactor on their class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "reactor.core.publisher.Mono")
  static class Reactive {

    @Bean
    @ConditionalOnMissingBean
    public ReactiveIdempotency idemReactiveIdempotency(
        Idempotency idempotency, StoreCallExecutor storeCalls, InFlightWork inFlight) {
      return new ReactiveIdempotency(idempotency, storeCalls, inFlight);
    }
  }

  /** A cap property as a scope cap: 0 (or less) is none. */
  static int cap(int property) {
    return property <= 0 ? ClaimRequest.NO_CAP : property;
  }

  /**
   * Whether {@code idem.defaults.replay-cache} or any {@code idem.policies.*.replay-cache} is true.
   */
  static final class ReplayCacheOn extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      Binder binder = Binder.get(context.getEnvironment());
      boolean on =
          binder.bind("idem.defaults.replay-cache", Boolean.class).orElse(false)
              || binder
                  .bind("idem.policies", Bindable.mapOf(String.class, IdemProperties.Policy.class))
                  .orElse(Map.of())
                  .values()
                  .stream()
                  .anyMatch(policy -> Boolean.TRUE.equals(policy.getReplayCache()));
      return on
          ? ConditionOutcome.match("a policy turns the replay cache on")
          : ConditionOutcome.noMatch("no policy turns the replay cache on");
    }
  }
}
