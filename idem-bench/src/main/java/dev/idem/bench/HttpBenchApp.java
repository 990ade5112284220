package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * The application {@link HttpBench} measures: one JSON POST endpoint ({@link HttpBenchController}),
 * started once per variant. A DataSource or a Lettuce client exists only when the variant names
 * one, so that the starter's store is the one the variant asks for.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(HttpBenchController.class)
public class HttpBenchApp {

  /** The PostgreSQL URL of the JDBC variant; no DataSource without it. */
  static final String POSTGRES_URL = "bench.postgres-url";

  /** The Redis URI of the Redis variant; no RedisClient without it. */
  static final String REDIS_URI = "bench.redis-uri";

  /** The key prefix of the hand-written Redis filter; no such filter without it. */
  static final String MINIMAL_PAIR_PREFIX = "bench.minimal-redis-pair-prefix";

  /**
   * True to let Netty gather the commands that request threads hand the Lettuce connection
   * meanwhile into one socket write (a {@link FlushConsolidationHandler}); off by default, as in an
   * application. {@link HttpVariant} sets it for its {@code REDIS_CONSOLIDATED} copy only; as a
   * system property it would reach every copy and spoil that comparison.
   */
  static final String REDIS_FLUSH_CONSOLIDATION = "bench.redis-flush-consolidation";

  /** Connections of the JDBC variant's pool, one per virtual user. */
  static final String POOL_SIZE = "bench.pool-size";

  /** The in-memory variant's bound on live records; the starter's own store keeps the default. */
  static final String MEMORY_MAX_ENTRIES = "bench.memory-max-entries";

  // A quarter of it for the one caller: more than a run's first calls keep.
  private static final long MEMORY_MAX_BYTES = 8L << 30;

  // The default bounds (100 000 live records, and a quarter of them or of the bytes for one
  // caller, where the load is one anonymous caller) fill within seconds at full load with an
  // hour's retention, after which the store refuses new keys (429): a store sized for the load is
  // the application's own bean, which the starter's store backs off for.
  @Bean
  @ConditionalOnProperty(MEMORY_MAX_ENTRIES)
  IdempotencyStore memoryStore(Environment environment) {
    return new InMemoryIdempotencyStore(
        Clock.systemUTC(),
        environment.getRequiredProperty(MEMORY_MAX_ENTRIES, Integer.class),
        MEMORY_MAX_BYTES);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(POSTGRES_URL)
  DataSource dataSource(Environment environment) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(environment.getRequiredProperty(POSTGRES_URL));
    int size = environment.getProperty(POOL_SIZE, Integer.class, 16);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    return new HikariDataSource(config);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(MINIMAL_PAIR_PREFIX)
  MinimalRedisPairFilter minimalRedisPairFilter(RedisClient client, Environment environment) {
    return new MinimalRedisPairFilter(client, environment.getRequiredProperty(MINIMAL_PAIR_PREFIX));
  }

  @Bean(destroyMethod = "shutdown")
  @ConditionalOnProperty(REDIS_URI)
  ClientResources redisResources(Environment environment) {
    DefaultClientResources.Builder builder = DefaultClientResources.builder();
    if (environment.getProperty(REDIS_FLUSH_CONSOLIDATION, Boolean.class, false)) {
      builder.nettyCustomizer(
          new NettyCustomizer() {
            @Override
            public void afterChannelInitialized(Channel channel) {
              channel.pipeline().addFirst(new FlushConsolidationHandler(256, true));
            }
          });
    }
    return builder.build();
  }

  @Bean(destroyMethod = "shutdown")
  @ConditionalOnProperty(REDIS_URI)
  RedisClient redisClient(Environment environment, ClientResources resources) {
    return RedisClient.create(resources, environment.getRequiredProperty(REDIS_URI));
  }
}
