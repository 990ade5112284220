package dev.idem.spring.autoconfigure;

import dev.idem.spring.IdemProperties;
import dev.idem.spring.openapi.IdempotencyOpenApiCustomizer;
import dev.idem.spring.web.IdempotencyFilter;
import dev.idem.spring.web.TokenController;
import org.springdoc.core.customizers.GlobalOpenApiCustomizer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * With springdoc on the class path, its OpenAPI documents describe the {@code Idempotency-Key}
 * semantics of every operation the {@link IdempotencyFilter} guards (an {@link
 * IdempotencyOpenApiCustomizer}). Needs the filter: with {@code idem.http.enabled=false} there is
 * nothing to describe.
 */
@AutoConfiguration(after = IdemWebAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(GlobalOpenApiCustomizer.class)
@ConditionalOnBean(IdempotencyFilter.class)
public class IdemOpenApiAutoConfiguration {

  /**
   * The customizer; names the token endpoint when it is there.
   *
   * @param filter decides which operations are guarded
   * @param properties where the token endpoint is
   * @param tokenEndpoint present unless {@code idem.http.token-path} is empty
   * @return a customizer that springdoc applies to every group's document
   */
  @Bean
  @ConditionalOnMissingBean
  public IdempotencyOpenApiCustomizer idempotencyOpenApiCustomizer(
      IdempotencyFilter filter,
      IdemProperties properties,
      ObjectProvider<TokenController> tokenEndpoint) {
    String tokenPath =
        tokenEndpoint.getIfAvailable() == null ? null : properties.getHttp().getTokenPath();
    return new IdempotencyOpenApiCustomizer(filter, tokenPath);
  }
}
