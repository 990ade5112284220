package dev.idem.spring.autoconfigure.internal;

import dev.idem.jdbc.JdbcDialect;
import dev.idem.spring.IdemJdbcProperties.SchemaInitialization;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Whether the starter creates the JDBC store's table, and the check at start-up that it exists, so
 * that a missing migration stops the start instead of failing the first request.
 */
final class SchemaCheck {

  private SchemaCheck() {}

  /** Whether to create the table: always, never, or only on an in-memory database. */
  static boolean creates(SchemaInitialization mode, DataSource dataSource) {
    return switch (mode) {
      case ALWAYS -> true;
      case NEVER -> false;
      case EMBEDDED -> inMemory(dataSource);
    };
  }

  /**
   * @throws StoreUnavailableException if {@code table} cannot be read
   */
  static void requireTable(DataSource dataSource, String table, JdbcDialect dialect) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
    } catch (SQLException e) {
      String folder = dialect.migrations();
      throw new StoreUnavailableException(
          "Idem's table " + table + " cannot be read in the DataSource: " + e.getMessage(),
          "Add classpath:"
              + folder
              + " (in idem-jdbc) to spring.flyway.locations, include"
              + " dev/idem/jdbc/liquibase/changelog.xml in the Liquibase changelog, run "
              + folder
              + "/beforeMigrate__idem_tables.sql, or set idem.jdbc.initialize-schema=always to let Idem"
              + " create it.");
    }
  }

  private static boolean inMemory(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      String url = c.getMetaData().getURL().toLowerCase(Locale.ROOT);
      return url.startsWith("jdbc:h2:mem:")
          || url.startsWith("jdbc:hsqldb:mem:")
          || url.startsWith("jdbc:derby:memory:");
    } catch (SQLException e) {
      return false;
    }
  }
}
