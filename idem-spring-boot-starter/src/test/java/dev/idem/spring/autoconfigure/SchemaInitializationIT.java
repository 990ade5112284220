package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spring.autoconfigure.internal.StoreUnavailableFailureAnalyzer;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * On PostgreSQL, a server database: Idem creates no table it was not asked to, and a missing one
 * stops the start with what to do.
 */
class SchemaInitializationIT {

  private static final String URL =
      System.getenv()
          .getOrDefault("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  private final String schema = "idem_schema_" + UUID.randomUUID().toString().replace("-", "");
  private final JdbcTemplate admin = new JdbcTemplate(new DriverManagerDataSource(URL));

  @AfterEach
  void dropSchema() {
    admin.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  @Test
  void byDefaultNoTableIsCreatedAndAMissingOneStopsTheStart() {
    admin.execute("CREATE SCHEMA " + schema);
    runner()
        .run(
            context -> {
              FailureAnalysis analysis =
                  new StoreUnavailableFailureAnalyzer().analyze(context.getStartupFailure());
              assertThat(analysis).isNotNull();
              assertThat(analysis.getAction())
                  .contains("classpath:dev/idem/jdbc/flyway/postgresql")
                  .contains("idem.jdbc.initialize-schema=always");
            });
    assertThat(tablesInSchema()).isZero();
  }

  @Test
  void alwaysCreatesIt() {
    admin.execute("CREATE SCHEMA " + schema);
    runner()
        .withPropertyValues("idem.jdbc.initialize-schema=always")
        .run(
            context ->
                assertThat(context.getBean(IdempotencyStore.class))
                    .isInstanceOf(JdbcIdempotencyStore.class));
    assertThat(tablesInSchema()).isPositive();
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class))
        .withBean(
            DataSource.class, () -> new DriverManagerDataSource(URL + "&currentSchema=" + schema));
  }

  private int tablesInSchema() {
    Integer count =
        admin.queryForObject(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ?",
            Integer.class,
            schema);
    return count == null ? 0 : count;
  }
}
