package dev.idem.spring.autoconfigure;

import dev.idem.spring.kafka.internal.KafkaListenerPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * {@link dev.idem.spring.messaging.IdempotentListener} support for Spring Kafka {@code
 * KafkaListener} methods, when Spring Kafka is on the class path. Off with {@code
 * idem.kafka.enabled=false}.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass(KafkaListener.class)
@ConditionalOnProperty(prefix = "idem.kafka", name = "enabled", matchIfMissing = true)
public class IdemKafkaAutoConfiguration {

  /** Static: a post-processor must not need this configuration class instantiated first. */
  @Bean
  @ConditionalOnMissingBean
  public static KafkaListenerPostProcessor kafkaListenerPostProcessor() {
    return new KafkaListenerPostProcessor();
  }
}
