package dev.idem.spring.amqp;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.spring.messaging.EffectsTable;
import dev.idem.spring.messaging.OutcomeLog;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The consumer application of the AMQP tests: the listeners of {@link TestListeners} on the queues
 * named by {@code test.*} properties, the JDBC store on PostgreSQL (in the Spring transaction), and
 * an {@link OutcomeLog} that hears every engine outcome.
 */
@SpringBootConfiguration
// Spring Data Redis is on the test class path; these applications pick their store otherwise.
@EnableAutoConfiguration(
    excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@Import(TestListeners.class)
public class AmqpTestApplication {

  static final String RABBIT_HOST = env("IDEM_RABBIT_HOST", "127.0.0.1");

  /** Starts a consumer with these properties (and command line arguments) over the defaults. */
  static ConfigurableApplicationContext start(Map<String, Object> properties, String... args) {
    return new SpringApplicationBuilder(AmqpTestApplication.class)
        .web(WebApplicationType.NONE)
        .properties(
            Map.of(
                "spring.rabbitmq.host", RABBIT_HOST,
                "spring.rabbitmq.listener.simple.prefetch", "1",
                "idem.jdbc.table", "idem_amqp_it_records",
                "spring.main.banner-mode", "off"))
        .properties(properties)
        .run(args);
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
  JdbcTemplate jdbcTemplate(DataSource dataSource) {
    return new JdbcTemplate(dataSource);
  }

  /**
   * A second container factory whose listeners get consumer batches: up to 10 messages, or what
   * came within 200 ms.
   */
  @Bean
  SimpleRabbitListenerContainerFactory batchFactory(
      SimpleRabbitListenerContainerFactoryConfigurer configurer, ConnectionFactory connections) {
    SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
    configurer.configure(factory, connections);
    factory.setBatchListener(true);
    factory.setConsumerBatchEnabled(true);
    factory.setBatchSize(10);
    factory.setPrefetchCount(10);
    factory.setReceiveTimeout(200L);
    return factory;
  }

  @Bean
  OutcomeLog outcomeLog() {
    return new OutcomeLog();
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
