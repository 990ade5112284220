package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The health indicator on the JDBC store on PostgreSQL: UP, then DOWN once the pool is gone. */
class JdbcStoreHealthIT {

  private static final String URL =
      System.getenv()
          .getOrDefault("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  @Test
  void isUpWhileTheDatabaseAnswersAndDownWithTheCauseWhenItDoesNot() {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(URL);
    pool.setMaximumPoolSize(2);
    new ApplicationContextRunner()
        .withPropertyValues("idem.jdbc.initialize-schema=always")
        .withConfiguration(
            AutoConfigurations.of(IdemAutoConfiguration.class, IdemHealthAutoConfiguration.class))
        .withBean(DataSource.class, () -> pool, bd -> bd.setDestroyMethodName("close"))
        .run(
            context -> {
              HealthIndicator indicator =
                  context.getBean("idemHealthIndicator", HealthIndicator.class);
              Health up = indicator.health();
              assertThat(up.getStatus()).isEqualTo(Status.UP);
              assertThat(up.getDetails()).containsEntry("store", "JdbcIdempotencyStore");

              pool.close();
              Health down = indicator.health();
              assertThat(down.getStatus()).isEqualTo(Status.DOWN);
              assertThat(down.getDetails().get("error").toString())
                  .contains("IdempotencyStoreException");
            });
  }
}
