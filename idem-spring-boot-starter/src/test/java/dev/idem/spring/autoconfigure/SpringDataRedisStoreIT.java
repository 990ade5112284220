package dev.idem.spring.autoconfigure;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The application of the README on real servers: a PostgreSQL DataSource and Spring Data Redis on
 * database 7, with idem-redis and idem-jdbc both present. The records go to Redis database 7.
 */
class SpringDataRedisStoreIT {

  private static final String REDIS_HOST = "127.0.0.1";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withPropertyValues("idem.jdbc.initialize-schema=always")
          .withConfiguration(
              AutoConfigurations.of(DataRedisAutoConfiguration.class, IdemAutoConfiguration.class))
          .withBean(DataSource.class, SpringDataRedisStoreIT::postgres)
          .withPropertyValues(
              "spring.data.redis.host=" + REDIS_HOST,
              "spring.data.redis.port=6379",
              "spring.data.redis.database=7");

  @Test
  void springDataRedisIsPickedOverTheDataSourceAndItsDatabaseIsUsed() {
    IdempotencyKey key = IdempotencyKey.of("store-choice", UUID.randomUUID().toString());
    runner.run(
        context -> {
          IdempotencyStore store = context.getBean(IdempotencyStore.class);
          assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
          ClaimResult claimed =
              now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofMinutes(1))));
          assertThat(claimed).isInstanceOf(ClaimResult.Claimed.class);
        });
    RedisClient client = RedisClient.create("redis://" + REDIS_HOST + ":6379");
    try (StatefulRedisConnection<String, String> redis = client.connect()) {
      String record = "idem:{" + key.digest() + "}";
      redis.sync().select(7);
      assertThat(redis.sync().exists(record)).as("in database 7").isEqualTo(1L);
      redis.sync().del(record);
      redis.sync().select(0);
      assertThat(redis.sync().exists(record)).as("in database 0").isZero();
    } finally {
      client.shutdown();
    }
  }

  @Test
  void replicaAcksRefuseAClaimThatNoReplicaHas() {
    // the shared Redis has no replica: every claim is refused
    IdempotencyKey key = IdempotencyKey.of("store-choice", UUID.randomUUID().toString());
    runner
        .withPropertyValues("idem.redis.replica-acks=1", "idem.redis.replica-ack-timeout=50ms")
        .run(
            context -> {
              IdempotencyStore store = context.getBean(IdempotencyStore.class);
              assertThatThrownBy(
                      () ->
                          now(
                              store.claim(
                                  ClaimRequest.of(key, Fingerprint.NONE, Duration.ofMinutes(1)))))
                  .isInstanceOf(IdempotencyStoreException.class)
                  .hasMessageContaining("acknowledged by 0 of 1 replicas within PT0.05S");
            });
  }

  @Test
  void aWaitForReplicasAsLongAsHalfALeaseStopsTheStart() {
    // a claim is given up on at half its lease: one waiting 2 s for replicas would never count
    runner
        .withPropertyValues(
            "idem.redis.replica-acks=1",
            "idem.redis.replica-ack-timeout=2s",
            "idem.policies.quick.lease=4s")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("idem.redis.replica-ack-timeout (PT2S)")
                    .hasStackTraceContaining("idem.policies.quick.lease (PT4S)"));
  }

  @Test
  void theDataSourceIsUsedWhenSpringDataRedisIsNotConfiguredToConnect() {
    new ApplicationContextRunner()
        .withPropertyValues("idem.jdbc.initialize-schema=always")
        .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class))
        .withBean(DataSource.class, SpringDataRedisStoreIT::postgres)
        .run(
            context ->
                assertThat(context.getBean(IdempotencyStore.class).getClass().getSimpleName())
                    .isEqualTo("JdbcIdempotencyStore"));
  }

  private static DataSource postgres() {
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl(
        System.getenv()
            .getOrDefault(
                "IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
    ds.setMaximumPoolSize(2);
    return ds;
  }
}
