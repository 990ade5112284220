package dev.idem.spring.autoconfigure;

import dev.idem.spring.amqp.internal.IdempotentListenerPostProcessor;
import dev.idem.spring.messaging.IdempotentListener;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * {@link IdempotentListener} support for Spring AMQP {@code @RabbitListener} methods, when Spring
 * AMQP is on the class path. Off with {@code idem.amqp.enabled=false}.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass(RabbitListener.class)
@ConditionalOnProperty(prefix = "idem.amqp", name = "enabled", matchIfMissing = true)
public class IdemAmqpAutoConfiguration {

  /** Static: a post-processor must not need this configuration class instantiated first. */
  @Bean
  @ConditionalOnMissingBean
  public static IdempotentListenerPostProcessor idempotentListenerPostProcessor() {
    return new IdempotentListenerPostProcessor();
  }
}
