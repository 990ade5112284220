package dev.idem.spring.aop;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Bean-method outcomes and the caller's transaction, on PostgreSQL with {@code
 * idem.jdbc.join-transactions=false}: the store writes outside the caller's transaction.
 */
class PostgresUnjoinedMethodTransactionIT extends IdempotentMethodTransactionTests {

  private static final String URL =
      System.getenv()
          .getOrDefault("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
  private static final String TABLE =
      "idem_unjoined_" + Integer.toUnsignedString(ThreadLocalRandom.current().nextInt(), 36);

  @AfterAll
  static void dropTable() {
    new JdbcTemplate(new DriverManagerDataSource(URL)).execute("DROP TABLE IF EXISTS " + TABLE);
  }

  @Override
  ApplicationContextRunner configure(ApplicationContextRunner runner) {
    return runner
        .withBean(DataSource.class, () -> new DriverManagerDataSource(URL))
        .withPropertyValues(
            "idem.jdbc.join-transactions=false",
            "idem.jdbc.table=" + TABLE,
            "idem.jdbc.initialize-schema=always");
  }

  @Override
  Class<? extends IdempotencyStore> expectedStore() {
    return JdbcIdempotencyStore.class;
  }
}
