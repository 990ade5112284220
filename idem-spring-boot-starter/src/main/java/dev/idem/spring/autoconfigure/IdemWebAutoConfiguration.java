package dev.idem.spring.autoconfigure;

import dev.idem.core.Idempotency;
import dev.idem.core.TokenService;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.web.IdempotencyFilter;
import dev.idem.spring.web.IdempotencyScopeResolver;
import dev.idem.spring.web.TokenController;
import dev.idem.spring.web.internal.IdemExceptionAdvice;
import dev.idem.spring.web.internal.RouteResolver;
import dev.idem.spring.web.internal.ServletRefusals;
import jakarta.servlet.MultipartConfigElement;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Spring MVC support: the {@link IdempotencyFilter} (registered as an ordered Filter bean), the
 * caller's {@link IdempotencyScopeResolver}, the token endpoint and the problem answers to Idem's
 * exceptions from bean methods ({@link IdemExceptionAdvice}). Off with {@code
 * idem.http.enabled=false}.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnProperty(prefix = "idem.http", name = "enabled", matchIfMissing = true)
public class IdemWebAutoConfiguration {

  /** Marks requests whose handler was never invoked because an argument was refused. */
  @Bean
  public static ServletRefusals idemArgumentRefusals() {
    return new ServletRefusals();
  }

  @Bean
  @ConditionalOnMissingBean
  public IdempotencyScopeResolver idempotencyScopeResolver() {
    return IdempotencyScopeResolver.principalOrAddress();
  }

  @Bean
  @ConditionalOnMissingBean
  public IdempotencyFilter idempotencyFilter(
      Idempotency idempotency,
      TokenService tokens,
      IdemPolicies policies,
      IdemProperties properties,
      IdempotencyScopeResolver scopes,
      ObjectProvider<RequestMappingHandlerMapping> mappings,
      ObjectProvider<InFlightWork> inFlight,
      ObjectProvider<MultipartConfigElement> multipart) {
    RouteResolver routes = new RouteResolver(mappings, properties.getHttp().getPaths(), policies);
    long maxBody = properties.getHttp().getMaxBodyBytes().toBytes();
    IdempotencyFilter filter =
        new IdempotencyFilter(
            idempotency,
            tokens,
            routes,
            scopes,
            maxBody,
            inFlight.getIfAvailable(InFlightWork::new));
    filter.setClientErrorRetention(properties.getHttp().getClientErrorRetention());
    filter.setContainerParsesParts(multipart.getIfAvailable() != null);
    filter.setMaxRecordsPerCaller(
        IdemAutoConfiguration.cap(properties.getHttp().getMaxRecordsPerCaller()));
    return filter;
  }

  /** Answers Idem exceptions from bean methods inside a request as the filter answers its own. */
  @Bean
  @ConditionalOnProperty(prefix = "idem.http", name = "problem-answers", matchIfMissing = true)
  IdemExceptionAdvice idemProblemAdvice() {
    return new IdemExceptionAdvice();
  }

  /** Refuses, once every handler is mapped, the protected handlers that cannot be protected. */
  @Bean
  public SmartInitializingSingleton idemProtectedHandlersCheck(
      ObjectProvider<IdempotencyFilter> filter) {
    return () -> filter.ifAvailable(IdempotencyFilter::checkHandlers);
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnExpression("!'${idem.http.token-path:/api/tokens}'.isEmpty()")
  public TokenController idemTokenController(TokenService tokens, IdempotencyScopeResolver scopes) {
    return new TokenController(tokens, scopes);
  }
}
