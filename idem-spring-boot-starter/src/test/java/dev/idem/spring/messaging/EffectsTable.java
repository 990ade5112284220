package dev.idem.spring.messaging;

import com.zaxxer.hikari.HikariDataSource;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;

/** The business table of a test on PostgreSQL: one row per effect, deliberately without keys. */
public final class EffectsTable implements AutoCloseable {

  /** PostgreSQL for the listener tests: {@code IDEM_POSTGRES_URL}, else the local server. */
  public static final String POSTGRES_URL = postgresUrl();

  private final HikariDataSource dataSource = new HikariDataSource();
  private final JdbcTemplate jdbc;
  public final String name = "idem_it_effects_" + UUID.randomUUID().toString().substring(0, 8);

  public EffectsTable() {
    dataSource.setJdbcUrl(POSTGRES_URL);
    dataSource.setMaximumPoolSize(2);
    jdbc = new JdbcTemplate(dataSource);
    jdbc.execute("CREATE TABLE " + name + " (body VARCHAR(200) NOT NULL)");
  }

  /** Rows written for {@code body}. */
  public long rows(String body) {
    return jdbc.queryForObject(
        "SELECT count(*) FROM " + name + " WHERE body = ?", Long.class, body);
  }

  public long rows() {
    return jdbc.queryForObject("SELECT count(*) FROM " + name, Long.class);
  }

  public long distinctBodies() {
    return jdbc.queryForObject("SELECT count(DISTINCT body) FROM " + name, Long.class);
  }

  private static String postgresUrl() {
    String url = System.getenv("IDEM_POSTGRES_URL");
    return url == null || url.isBlank()
        ? "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"
        : url;
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
