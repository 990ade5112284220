package dev.idem.spring.autoconfigure;

import dev.idem.core.Idempotency;
import dev.idem.core.TokenService;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.StoreCallExecutor;
import dev.idem.spring.web.internal.IdemExceptionAdvice;
import dev.idem.spring.web.internal.Routes;
import dev.idem.spring.webflux.IdempotencyWebFilter;
import dev.idem.spring.webflux.ReactiveScopeResolver;
import dev.idem.spring.webflux.ReactiveTokenController;
import dev.idem.spring.webflux.internal.HandlerReturns;
import dev.idem.spring.webflux.internal.ReactiveRouteResolver;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.WebExceptionHandler;

/**
 * Spring WebFlux support: the {@link IdempotencyWebFilter}, the caller's {@link
 * ReactiveScopeResolver}, the token endpoint and the problem answers to Idem's exceptions from bean
 * methods ({@link IdemExceptionAdvice}). Off with {@code idem.http.enabled=false}.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(RequestMappingHandlerMapping.class)
@ConditionalOnProperty(prefix = "idem.http", name = "enabled", matchIfMissing = true)
public class IdemWebFluxAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public ReactiveScopeResolver reactiveScopeResolver() {
    return ReactiveScopeResolver.principalOrAddress();
  }

  @Bean
  @ConditionalOnMissingBean
  public IdempotencyWebFilter idempotencyWebFilter(
      Idempotency idempotency,
      TokenService tokens,
      IdemPolicies policies,
      IdemProperties properties,
      ReactiveScopeResolver scopes,
      ObjectProvider<RequestMappingHandlerMapping> mappings,
      ObjectProvider<InFlightWork> inFlight,
      StoreCallExecutor storeCalls,
      ObjectProvider<WebExceptionHandler> errorHandlers) {
    Routes routes = new Routes(properties.getHttp().getPaths(), policies);
    routes.setMaxRecordsPerCaller(
        IdemAutoConfiguration.cap(properties.getHttp().getMaxRecordsPerCaller()));
    IdempotencyWebFilter filter =
        new IdempotencyWebFilter(
            idempotency,
            tokens,
            new ReactiveRouteResolver(mappings, routes),
            scopes,
            properties.getHttp().getMaxBodyBytes().toBytes(),
            inFlight.getIfAvailable(InFlightWork::new),
            storeCalls);
    filter.setClientErrorRetention(properties.getHttp().getClientErrorRetention());
    filter.setErrorHandlers(() -> errorHandlers.orderedStream().toList());
    return filter;
  }

  /** Marks exchanges whose handler method returned, so refusals after it keep the key. */
  @Bean
  public HandlerReturns idemHandlerReturns(
      ObjectProvider<
              org.springframework.web.reactive.result.method.annotation
                  .RequestMappingHandlerAdapter>
          adapters) {
    return new HandlerReturns(adapters);
  }

  /** Checks the annotated handlers once every handler is mapped. */
  @Bean
  public SmartInitializingSingleton idemReactiveHandlersCheck(
      ObjectProvider<IdempotencyWebFilter> filter) {
    return () -> filter.ifAvailable(IdempotencyWebFilter::checkHandlers);
  }

  /** Answers Idem exceptions from bean methods inside a request as the filter answers its own. */
  @Bean
  @ConditionalOnProperty(prefix = "idem.http", name = "problem-answers", matchIfMissing = true)
  IdemExceptionAdvice idemProblemAdvice() {
    return new IdemExceptionAdvice();
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnExpression("!'${idem.http.token-path:/api/tokens}'.isEmpty()")
  public ReactiveTokenController idemReactiveTokenController(
      TokenService tokens, ReactiveScopeResolver scopes, StoreCallExecutor storeCalls) {
    return new ReactiveTokenController(tokens, scopes, storeCalls);
  }
}
