package dev.idem.spring.autoconfigure;

import dev.idem.core.Idempotency;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.aop.IdempotentCallerResolver;
import dev.idem.spring.aop.IdempotentMethodInterceptor;
import dev.idem.spring.aop.IdempotentMethodPostProcessor;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link dev.idem.spring.Idempotent @Idempotent} on any bean method: a post-processor that proxies
 * annotated beans and the interceptor that runs their methods through the engine, storing return
 * values with the application's {@link JsonMapper} (a default one when there is none). Needs Spring
 * AOP and Jackson 3 on the class path.
 */
@AutoConfiguration(
    after = IdemAutoConfiguration.class,
    afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass({MethodInterceptor.class, ObjectMapper.class})
public class IdemAopAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public IdempotentMethodInterceptor idempotentMethodInterceptor(
      Idempotency idempotency,
      IdemPolicies policies,
      ObjectProvider<JsonMapper> mapper,
      ObjectProvider<IdempotentCallerResolver> callers,
      BeanFactory beanFactory,
      ObjectProvider<InFlightWork> inFlight) {
    return new IdempotentMethodInterceptor(
        idempotency,
        policies,
        mapper.getIfUnique(() -> JsonMapper.builder().build()),
        callers.getIfUnique(),
        beanFactory,
        inFlight.getIfAvailable(InFlightWork::new));
  }

  /** Static, as every post-processor: it must not need this configuration to be created first. */
  @Bean
  @ConditionalOnMissingBean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public static IdempotentMethodPostProcessor idempotentMethodPostProcessor(
      ObjectProvider<IdempotentMethodInterceptor> interceptor, Environment environment) {
    IdempotentMethodPostProcessor postProcessor =
        new IdempotentMethodPostProcessor(interceptor::getObject);
    postProcessor.setProxyTargetClass(
        environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true));
    return postProcessor;
  }
}
