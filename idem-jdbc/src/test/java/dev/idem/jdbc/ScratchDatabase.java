package dev.idem.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * A new, empty database on the server of a test URL (for H2, a new in-memory one), with a small
 * pool on it; closing it drops the database. For tests that must start from nothing, such as a
 * first migration.
 */
final class ScratchDatabase implements AutoCloseable {

  private final String serverUrl;
  private final String name;
  private final JdbcDialect dialect;
  private final HikariDataSource pool;

  private ScratchDatabase(String serverUrl, String name, JdbcDialect dialect, String url) {
    this.serverUrl = serverUrl;
    this.name = name;
    this.dialect = dialect;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    // Flyway takes a connection of its own for callbacks beside the one it migrates on.
    config.setMaximumPoolSize(4);
    this.pool = new HikariDataSource(config);
  }

  /** Creates one on the server that {@code url} reaches. */
  static ScratchDatabase beside(String url, JdbcDialect dialect) {
    String name = "idem_scratch_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
    if (dialect.name().equals("h2")) {
      return new ScratchDatabase(null, name, dialect, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
    }
    execute(url, "CREATE DATABASE " + name);
    // The database is the URL's path: jdbc:postgresql://host:port/<database>?...
    return new ScratchDatabase(
        url, name, dialect, url.replaceFirst("(//[^/]+/)[^?;]*", "$1" + name));
  }

  DataSource dataSource() {
    return pool;
  }

  @Override
  public void close() {
    pool.close();
    if (serverUrl != null) {
      boolean postgres = dialect.name().equals("postgresql");
      execute(serverUrl, "DROP DATABASE " + name + (postgres ? " WITH (FORCE)" : ""));
    }
  }

  private static void execute(String url, String sql) {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + " failed on " + url, e);
    }
  }
}
