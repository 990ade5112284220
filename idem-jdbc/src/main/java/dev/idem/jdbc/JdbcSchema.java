package dev.idem.jdbc;

import dev.idem.core.IdempotencyStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Creates the records table from the dialect's {@code schema-*.sql} file in this jar, and the locks
 * table from its {@code locks-*.sql} file, under the configured table names. Safe to run more than
 * once. Applications that manage their schema with Flyway or Liquibase copy the same file into
 * their migrations instead.
 */
public final class JdbcSchema {

  // MySQL's CREATE INDEX has no IF NOT EXISTS: an index of that name is already there.
  private static final int MYSQL_DUPLICATE_INDEX_NAME = 1061;

  private JdbcSchema() {}

  /** Creates the table and its index if they are missing. */
  public static void createIfMissing(DataSource dataSource, JdbcStoreConfig config) {
    run(dataSource, config.dialect().schemaResource(), "idem_records", config.table());
  }

  /** Creates the locks table of {@link JdbcLockProvider} and its index if they are missing. */
  public static void createIfMissing(DataSource dataSource, JdbcLockConfig config) {
    run(dataSource, config.dialect().lockSchemaResource(), "idem_locks", config.table());
  }

  // The scripts name their table `placeholder` and its indexes `placeholder_<what>`.
  private static void run(
      DataSource dataSource, String resource, String placeholder, String table) {
    String script = read(resource);
    String indexPrefix = table.replace('.', '_') + "_";
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String statement : script.split(";")) {
        String body = stripComments(statement);
        if (body.isBlank()) {
          continue;
        }
        String sql = body.replace(placeholder + "_", indexPrefix).replace(placeholder, table);
        try {
          s.execute(sql);
        } catch (SQLException e) {
          if (e.getErrorCode() != MYSQL_DUPLICATE_INDEX_NAME) {
            throw e;
          }
        }
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    } catch (SQLException e) {
      throw new IdempotencyStoreException("could not create table " + table, e);
    }
  }

  private static String stripComments(String sql) {
    StringBuilder out = new StringBuilder();
    for (String line : sql.split("\n")) {
      if (!line.trim().startsWith("--")) {
        out.append(line).append('\n');
      }
    }
    return out.toString();
  }

  private static String read(String resource) {
    try (InputStream in = JdbcSchema.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
  }
}
