package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** On PostgreSQL the auto-configured JDBC store writes its records in the Spring transaction. */
class JdbcJoinModeIT {

  private static final String URL =
      System.getenv()
          .getOrDefault("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withPropertyValues("idem.jdbc.initialize-schema=always")
          .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class))
          .withBean(DataSource.class, JdbcJoinModeIT::pool, bd -> bd.setDestroyMethodName("close"));

  private static HikariDataSource pool() {
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl(URL);
    ds.setMaximumPoolSize(4);
    return ds;
  }

  @Test
  void aRecordWrittenInARolledBackTransactionIsGone() {
    runner.run(
        context -> {
          assertThat(context.getBean(IdempotencyStore.class))
              .isInstanceOf(JdbcIdempotencyStore.class);
          Idempotency idempotency = context.getBean(Idempotency.class);
          TransactionTemplate tx =
              new TransactionTemplate(
                  new DataSourceTransactionManager(context.getBean(DataSource.class)));
          IdempotencyKey key = IdempotencyKey.of("join", UUID.randomUUID().toString());
          tx.executeWithoutResult(
              status -> {
                idempotency.call(key, Fingerprint.NONE).run(ctx -> "done");
                assertThat(idempotency.store().find(key)).isPresent();
                status.setRollbackOnly();
              });
          assertThat(idempotency.store().find(key)).isEmpty();

          idempotency.call(key, Fingerprint.NONE).run(ctx -> "done");
          assertThat(idempotency.store().find(key)).isPresent();
        });
  }
}
