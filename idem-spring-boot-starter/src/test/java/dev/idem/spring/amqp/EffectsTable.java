package dev.idem.spring.amqp;

import com.zaxxer.hikari.HikariDataSource;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;

/** The business table of a test on PostgreSQL: one row per effect, deliberately without keys. */
final class EffectsTable implements AutoCloseable {

  private final HikariDataSource dataSource = new HikariDataSource();
  private final JdbcTemplate jdbc;
  final String name = "idem_it_effects_" + UUID.randomUUID().toString().substring(0, 8);

  EffectsTable() {
    dataSource.setJdbcUrl(AmqpTestApplication.POSTGRES_URL);
    dataSource.setMaximumPoolSize(2);
    jdbc = new JdbcTemplate(dataSource);
    jdbc.execute("CREATE TABLE " + name + " (body VARCHAR(200) NOT NULL)");
  }

  /** Rows written for {@code body}. */
  long rows(String body) {
    return jdbc.queryForObject(
        "SELECT count(*) FROM " + name + " WHERE body = ?", Long.class, body);
  }

  long rows() {
    return jdbc.queryForObject("SELECT count(*) FROM " + name, Long.class);
  }

  long distinctBodies() {
    return jdbc.queryForObject("SELECT count(DISTINCT body) FROM " + name, Long.class);
  }

  @Override
  public void close() {
    try {
      jdbc.execute("DROP TABLE IF EXISTS " + name);
    } finally {
      dataSource.close();
    }
  }
}
