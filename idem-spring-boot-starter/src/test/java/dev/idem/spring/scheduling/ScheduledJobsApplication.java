package dev.idem.spring.scheduling;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.spring.aop.IdempotentMethodInterceptor;
import io.lettuce.core.RedisClient;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * One node of the scheduling tests: {@link ScheduledJobs} on a store shared with the other nodes
 * (Redis with {@code test.redis}, PostgreSQL with {@code test.postgres}); {@code test.clock} (epoch
 * milliseconds) fixes the clock slots are read from.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(
    excludeName = {
      "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
      "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
      "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration"
    })
@EnableScheduling
@Import(ScheduledJobs.class)
public class ScheduledJobsApplication {

  static ConfigurableApplicationContext start(Map<String, Object> properties) {
    return new SpringApplicationBuilder(ScheduledJobsApplication.class)
        .web(WebApplicationType.NONE)
        .properties(
            Map.of(
                "spring.main.banner-mode", "off",
                "spring.task.scheduling.pool.size", 4,
                // a node closed by a test stops as one that died: it does not wait for its runs
                "spring.lifecycle.timeout-per-shutdown-phase", "200ms"))
        .properties(properties)
        .run();
  }

  @Bean(destroyMethod = "shutdown")
  @ConditionalOnProperty("test.redis")
  RedisClient redisClient() {
    String url = System.getenv("IDEM_REDIS_URL");
    return RedisClient.create(url == null || url.isBlank() ? "redis://127.0.0.1:6379" : url);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnProperty("test.postgres")
  DataSource dataSource() {
    String url = System.getenv("IDEM_POSTGRES_URL");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(
        url == null || url.isBlank() ? "jdbc:postgresql://127.0.0.1:5432/test?user=postgres" : url);
    config.setMaximumPoolSize(4);
    return new HikariDataSource(config);
  }

  /** Transactions with no resource: enough for a job to tell that its advice ran. */
  @Bean
  org.springframework.transaction.PlatformTransactionManager transactionManager() {
    return new dev.idem.spring.ResourcelessTransactions();
  }

  @Bean
  static BeanPostProcessor fixedSlotClock(Environment environment) {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessAfterInitialization(Object bean, String name) {
        String millis = environment.getProperty("test.clock");
        if (bean instanceof IdempotentMethodInterceptor interceptor && millis != null) {
          interceptor.setClock(
              Clock.fixed(Instant.ofEpochMilli(Long.parseLong(millis)), ZoneOffset.UTC));
        }
        return bean;
      }
    };
  }
}
