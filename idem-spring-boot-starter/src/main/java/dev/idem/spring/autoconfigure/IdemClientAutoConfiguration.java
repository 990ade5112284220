package dev.idem.spring.autoconfigure;

import dev.idem.spring.IdemClientProperties;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.client.IdempotentExchangeRetries;
import dev.idem.spring.client.IdempotentRetries;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;

/**
 * With {@code idem.client.retries=true}: every {@code RestClient.Builder} Spring Boot hands out
 * gets {@link IdempotentRetries}, and every {@code WebClient.Builder} {@link
 * IdempotentExchangeRetries}, with the budget of {@code idem.client.*}. Off by default, as it
 * changes what every client of the application sends; a client built by hand adds them itself.
 */
@AutoConfiguration
@ConditionalOnClass(RestClient.class)
@ConditionalOnProperty(prefix = "idem.client", name = "retries", havingValue = "true")
@EnableConfigurationProperties(IdemProperties.class)
public class IdemClientAutoConfiguration {

  /** The retries, from {@code idem.client.*}; an application's own bean replaces them. */
  @Bean
  @ConditionalOnMissingBean
  public IdempotentRetries idempotentRetries(IdemProperties properties) {
    IdemClientProperties client = properties.getClient();
    return IdempotentRetries.builder()
        .maxAttempts(client.getMaxAttempts())
        .delay(client.getFirstDelay(), client.getMaxDelay())
        .maxRetryAfter(client.getMaxRetryAfter())
        .timeout(client.getTimeout())
        .keysHonouredBy(client.getKeysHonouredBy().toArray(String[]::new))
        .retryServerErrors(client.isRetryServerErrors())
        .build();
  }

  /** Spring Boot's {@code RestClient.Builder}s. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RestClientCustomizer.class)
  static class RestClients {
    @Bean
    RestClientCustomizer idempotentRestClientCustomizer(IdempotentRetries retries) {
      return builder -> builder.requestInterceptor(retries);
    }
  }

  /** Spring Boot's {@code WebClient.Builder}s, with WebFlux on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "org.springframework.boot.webclient.WebClientCustomizer",
        "org.springframework.web.reactive.function.client.WebClient"
      })
  static class WebClients {
    @Bean
    WebClientCustomizer idempotentWebClientCustomizer(IdempotentRetries retries) {
      return builder -> builder.filter(IdempotentExchangeRetries.from(retries));
    }
  }
}
