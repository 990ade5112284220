package dev.idem.spring.kafka;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.spring.messaging.EffectsTable;
import dev.idem.spring.messaging.OutcomeLog;
import io.lettuce.core.RedisClient;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The consumer application of the Kafka tests: the listeners of {@link KafkaTestListeners} on the
 * topics named by {@code test.*} properties, the JDBC store on PostgreSQL (in the Spring
 * transaction), an error handler that retries a failed record twice and then publishes it to {@code
 * <topic>-dlt}, and an {@link OutcomeLog} that hears every engine outcome.
 */
@SpringBootConfiguration
// Spring Data Redis and RabbitMQ are on the test class path; these applications use neither.
@EnableAutoConfiguration(
    excludeName = {
      "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
      "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration"
    })
@Import(KafkaTestListeners.class)
public class KafkaTestApplication {

  /** Starts a consumer with these properties (and command line arguments) over the defaults. */
  static ConfigurableApplicationContext start(Map<String, Object> properties, String... args) {
    return new SpringApplicationBuilder(KafkaTestApplication.class)
        .web(WebApplicationType.NONE)
        .properties(
            Map.of(
                "spring.kafka.consumer.auto-offset-reset", "earliest",
                "spring.kafka.consumer.properties.session.timeout.ms", "6000",
                "spring.kafka.consumer.properties.heartbeat.interval.ms", "1000",
                "idem.jdbc.table", "idem_kafka_it_records",
                "spring.main.banner-mode", "off"))
        .properties(properties)
        .run(args);
  }

  /**
   * The properties of a consumer on fresh topics (named after {@code prefix}), a fresh consumer
   * group and {@code effects}' table.
   */
  static Map<String, Object> freshTopics(String prefix, EffectsTable effects) {
    Map<String, Object> properties = new java.util.HashMap<>();
    properties.put("spring.kafka.bootstrap-servers", KafkaBroker.servers());
    properties.put("test.table", effects.name);
    properties.put("test.group", prefix + "-" + java.util.UUID.randomUUID());
    properties.put("test.topic", KafkaBroker.topic(prefix + "-effects", 1));
    properties.put("test.keyed-topic", KafkaBroker.topic(prefix + "-keyed", 1));
    properties.put("test.manual-topic", KafkaBroker.topic(prefix + "-manual", 1));
    properties.put("test.batch-topic", KafkaBroker.topic(prefix + "-batch", 1));
    return properties;
  }

  /** The Redis the tests' Redis store uses: {@code IDEM_REDIS_URL}, else the local server. */
  static String redisUrl() {
    String url = System.getenv("IDEM_REDIS_URL");
    return url == null || url.isBlank() ? "redis://127.0.0.1:6379" : url;
  }

  @Bean(destroyMethod = "close")
  DataSource dataSource() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(EffectsTable.POSTGRES_URL);
    config.setMaximumPoolSize(8);
    return new HikariDataSource(config);
  }

  @Bean
  PlatformTransactionManager transactionManager(DataSource dataSource) {
    return new DataSourceTransactionManager(dataSource);
  }

  @Bean
  Notifier notifier() {
    return new Notifier();
  }

  @Bean
  JdbcTemplate jdbcTemplate(DataSource dataSource) {
    return new JdbcTemplate(dataSource);
  }

  /** A Lettuce client for the Redis store, when a test names its server. */
  @Bean(destroyMethod = "shutdown")
  @ConditionalOnProperty(name = "test.redis-url")
  RedisClient redisClient(@Value("${test.redis-url}") String url) {
    return RedisClient.create(url);
  }

  @Bean
  OutcomeLog outcomeLog() {
    return new OutcomeLog();
  }

  /** Two retries without delay, then the record goes to {@code <topic>-dlt}. */
  @Bean
  DefaultErrorHandler errorHandler(KafkaTemplate<Object, Object> template) {
    return new DefaultErrorHandler(
        new DeadLetterPublishingRecoverer(
            template,
            (record, e) -> new org.apache.kafka.common.TopicPartition(record.topic() + "-dlt", -1)),
        new FixedBackOff(0, 2));
  }

  /** The factory of batch listeners, configured as Boot configures its own. */
  @Bean
  ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
      ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
      ConsumerFactory<Object, Object> consumers) {
    return factory(configurer, consumers, true, null);
  }

  /** The factory of batch listeners that acknowledge records of their batch themselves. */
  @Bean
  ConcurrentKafkaListenerContainerFactory<Object, Object> batchManualFactory(
      ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
      ConsumerFactory<Object, Object> consumers) {
    return factory(configurer, consumers, true, ContainerProperties.AckMode.MANUAL_IMMEDIATE);
  }

  /** The factory of listeners that acknowledge each record themselves. */
  @Bean
  ConcurrentKafkaListenerContainerFactory<Object, Object> manualFactory(
      ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
      ConsumerFactory<Object, Object> consumers) {
    return factory(configurer, consumers, false, ContainerProperties.AckMode.MANUAL_IMMEDIATE);
  }

  // A factory configured as Boot configures its own; a null ack mode keeps Boot's.
  private static ConcurrentKafkaListenerContainerFactory<Object, Object> factory(
      ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
      ConsumerFactory<Object, Object> consumers,
      boolean batch,
      ContainerProperties.AckMode ackMode) {
    ConcurrentKafkaListenerContainerFactory<Object, Object> factory =
        new ConcurrentKafkaListenerContainerFactory<>();
    configurer.configure(factory, consumers);
    factory.setBatchListener(batch);
    if (ackMode != null) {
      factory.getContainerProperties().setAckMode(ackMode);
    }
    return factory;
  }
}
