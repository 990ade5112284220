package dev.idem.jdbc;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.jdbc.internal.SqlIdentifiers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Creates the records, locks or resume log table, under its configured name, from the statements of
 * the dialect's one migration file in this jar ({@link JdbcDialect#migrations()}), which Flyway and
 * Liquibase run as they are. Creates only what is missing, so it is safe to run more than once.
 */
public final class JdbcSchema {

  /** The name of the migration file in each dialect's folder. */
  public static final String MIGRATION = "beforeMigrate__idem_tables.sql";

  private JdbcSchema() {}

  // one more than the statements of a table's script that nodes can race on
  private static final int CREATE_ATTEMPTS = 6;

  /** Creates the table and its index if they are missing. */
  public static void createIfMissing(DataSource dataSource, JdbcStoreConfig config) {
    run(dataSource, config.dialect(), "idem_records", config.table());
  }

  /** Creates the locks table of {@link JdbcLockProvider} and its index if they are missing. */
  public static void createIfMissing(DataSource dataSource, JdbcLockConfig config) {
    run(dataSource, config.dialect(), "idem_locks", config.table());
  }

  /**
   * Creates the table of a {@link JdbcResumeLog} (named {@code table}: letters, digits and
   * underscores, optionally {@code schema.table}) and its indexes if they are missing.
   */
  public static void createIfMissing(DataSource dataSource, JdbcDialect dialect, String table) {
    run(dataSource, dialect, "idem_resumes", SqlIdentifiers.table(table));
  }

  // The file names the tables idem_records, idem_locks and idem_resumes and their indexes
  // <table>_<what>; the
  // statements about `placeholder` are run, under the configured name.
  // Nodes that start at once on an empty database all create the table: a loser may be refused
  // (PostgreSQL's catalog answers a duplicate name even to IF NOT EXISTS, once per statement the
  // nodes race on), so it runs the script again, when its statements find what the others made.
  private static void run(
      DataSource dataSource, JdbcDialect dialect, String placeholder, String table) {
    IdempotencyStoreException failed = null;
    for (int attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
      try {
        runOnce(dataSource, dialect, placeholder, table);
        return;
      } catch (IdempotencyStoreException e) {
        if (failed != null) {
          e.addSuppressed(failed);
        }
        failed = e;
      }
    }
    throw failed;
  }

  private static void runOnce(
      DataSource dataSource, JdbcDialect dialect, String placeholder, String table) {
    String script = read(dialect.migrations() + "/" + MIGRATION);
    String indexPrefix = table.replace('.', '_') + "_";
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String body : stripComments(script).split(";")) {
        if (body.contains(placeholder)) {
          s.execute(body.replace(placeholder + "_", indexPrefix).replace(placeholder, table));
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
