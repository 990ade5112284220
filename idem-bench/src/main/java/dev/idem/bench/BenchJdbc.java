package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The JDBC chores of the peer benchmarks: pools, one-off statements, Spring Integration's tables.
 */
final class BenchJdbc {

  private BenchJdbc() {}

  /** A HikariCP pool of {@code size} connections to {@code url}, named for thread dumps. */
  static HikariDataSource pool(String url, String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(size);
    config.setPoolName("idem-bench-" + name);
    return new HikariDataSource(config);
  }

  /** Runs one statement in auto-commit. */
  static void execute(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /**
   * The {@code CREATE TABLE} of Spring Integration's table {@code INT_<table>} from the PostgreSQL
   * schema in its JDBC jar, named {@code <prefix><table>} and made {@code IF NOT EXISTS}.
   */
  static String springIntegrationTable(String table, String prefix) throws IOException {
    String path = "/org/springframework/integration/jdbc/schema-postgresql.sql";
    try (InputStream in = BenchJdbc.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(path + " is missing from spring-integration-jdbc");
      }
      String schema = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      String create = "CREATE TABLE INT_" + table + " ";
      for (String statement : schema.split(";")) {
        if (statement.contains(create)) {
          return statement
              .strip()
              .replace(create, "CREATE TABLE IF NOT EXISTS " + prefix + table + " ")
              .replace("INT_" + table + "_PK", prefix + table + "_PK");
        }
      }
      throw new IllegalStateException(path + " has no table INT_" + table);
    }
  }
}
