package dev.idem.spring.tx;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;

/**
 * The transaction decides, on real servers: the JDBC store joining the transaction on PostgreSQL
 * and MariaDB, the JDBC store beside it on PostgreSQL, and Redis (business rows on PostgreSQL).
 */
class TransactionDecidesIT {

  private static final HikariDataSource POSTGRES =
      pool(env("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
  private static final HikariDataSource MARIADB =
      pool(env("IDEM_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root"));
  private static final String REDIS = env("IDEM_REDIS_URL", "redis://127.0.0.1:6379");

  @AfterAll
  static void closePools() {
    POSTGRES.close();
    MARIADB.close();
  }

  @Nested
  class JdbcStoreJoiningOnPostgres extends TransactionDecidesContract {
    JdbcStoreJoiningOnPostgres() {
      super(POSTGRES, JdbcIdempotencyStore.class, "idem.store=jdbc");
    }
  }

  @Nested
  class JdbcStoreJoiningOnMariaDb extends TransactionDecidesContract {
    JdbcStoreJoiningOnMariaDb() {
      super(MARIADB, JdbcIdempotencyStore.class, "idem.store=jdbc");
    }
  }

  @Nested
  class JdbcStoreBesideTheTransactionOnPostgres extends TransactionDecidesContract {
    JdbcStoreBesideTheTransactionOnPostgres() {
      super(
          POSTGRES,
          JdbcIdempotencyStore.class,
          "idem.store=jdbc",
          "idem.jdbc.join-transactions=false");
    }
  }

  @Nested
  class RedisStoreAfterTheTransaction extends TransactionDecidesContract {
    RedisStoreAfterTheTransaction() {
      super(
          POSTGRES,
          RedisIdempotencyStore.class,
          runner ->
              runner
                  .withBean(
                      RedisClient.class,
                      () -> RedisClient.create(REDIS),
                      d -> d.setDestroyMethodName("shutdown"))
                  .withPropertyValues(
                      "idem.store=redis",
                      "idem.redis.key-prefix=idem-tx-decides-" + UUID.randomUUID() + ":"));
    }
  }

  private static HikariDataSource pool(String url) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(url);
    pool.setMaximumPoolSize(8);
    return pool;
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
