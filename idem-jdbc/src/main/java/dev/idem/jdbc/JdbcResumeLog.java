package dev.idem.jdbc;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.resume.ResumeEntry;
import dev.idem.core.resume.ResumeLog;
import dev.idem.jdbc.internal.Jdbc;
import dev.idem.jdbc.internal.Params;
import dev.idem.jdbc.internal.ResumeSql;
import dev.idem.jdbc.internal.SqlIdentifiers;
import dev.idem.jdbc.internal.Statements;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.sql.DataSource;

/**
 * A {@link ResumeLog} in a database table, one row per resumable call, by the database's clock.
 * Each call is one statement on a pooled connection of its own, never the caller's transaction: an
 * entry written by work that rolls back stays, so that the completer runs the call again. Taking
 * due entries is a read and then one conditional update per entry, which only the first of several
 * completers reading the same due time wins. Create the table with {@link
 * JdbcSchema#createIfMissing(DataSource, JdbcDialect, String)} or the migration files in this jar.
 */
public final class JdbcResumeLog implements ResumeLog {

  /** The default table name. */
  public static final String DEFAULT_TABLE = "idem_resumes";

  // Keeps "now + duration" inside a BIGINT however long a caller asks for.
  private static final long LONGEST_MS = Long.MAX_VALUE / 4;

  private final Jdbc jdbc;
  private final Statements dialect;
  private final ResumeSql sql;

  /** A log in the table {@value #DEFAULT_TABLE}. */
  public JdbcResumeLog(DataSource dataSource, JdbcDialect dialect) {
    this(dataSource, dialect, DEFAULT_TABLE);
  }

  /**
   * A log in {@code table}: letters, digits and underscores, optionally {@code schema.table}.
   *
   * @throws IllegalArgumentException the table name is not one
   */
  public JdbcResumeLog(DataSource dataSource, JdbcDialect dialect, String table) {
    this.jdbc = new Jdbc(dataSource, null, JdbcStoreConfig.DEFAULT_CALL_TIMEOUT);
    this.dialect = dialect.sql();
    this.sql = ResumeSql.of(this.dialect, SqlIdentifiers.table(table));
  }

  @Override
  public void remember(ResumeEntry entry, Duration delay, Duration keepFor) {
    String id = rowId(entry);
    jdbc.run(
        "remember",
        c -> {
          Params.update(c, sql.dropExpired(), id, entry.fingerprint().value());
          try {
            return Params.update(
                c,
                sql.insert(),
                id,
                digest(entry.operation()),
                entry.key().scope(),
                entry.key().value(),
                entry.fingerprint().value(),
                entry.input(),
                millis(delay),
                millis(keepFor));
          } catch (SQLException e) {
            // the same call, remembered by a run racing this one: it stays as it is
            if (dialect.isDuplicateKey(e)) {
              return 0;
            }
            throw e;
          }
        });
  }

  @Override
  public List<ResumeEntry> takeDue(String operation, Duration hold, int limit) {
    long holdMs = millis(hold);
    return jdbc.run(
        "takeDue",
        c -> {
          List<ResumeEntry> taken = new ArrayList<>();
          for (Row row : read(c, sql.due(), operation, limit)) {
            if (Params.update(c, sql.take(), holdMs, row.id(), row.dueAt()) == 1) {
              taken.add(row.entry());
            }
          }
          return taken;
        });
  }

  @Override
  public boolean failed(ResumeEntry entry, Duration delay) {
    return update("failed", sql.failed(), millis(delay), rowId(entry), print(entry));
  }

  @Override
  public boolean abandon(ResumeEntry entry) {
    return update("abandon", sql.abandon(), rowId(entry), print(entry));
  }

  @Override
  public List<ResumeEntry> abandoned(String operation, int limit) {
    return jdbc.run(
        "abandoned",
        c -> read(c, sql.abandoned(), operation, limit).stream().map(Row::entry).toList());
  }

  @Override
  public boolean reopen(ResumeEntry entry) {
    return update("reopen", sql.reopen(), rowId(entry), print(entry));
  }

  @Override
  public boolean forget(ResumeEntry entry) {
    return update("forget", sql.forget(), rowId(entry), print(entry));
  }

  @Override
  public int purgeExpired(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    return jdbc.run("purgeExpired", c -> Params.update(c, sql.purge(), limit));
  }

  private boolean update(String what, String statement, Object... params) {
    return jdbc.run(what, c -> Params.update(c, statement, params)) == 1;
  }

  private static List<Row> read(Connection c, String statement, String operation, int limit)
      throws SQLException {
    List<Row> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      Params.bind(ps, digest(operation), limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ResumeEntry entry =
              new ResumeEntry(
                  operation,
                  IdempotencyKey.of(rs.getString("scope"), rs.getString("key_value")),
                  new Fingerprint(rs.getString("fingerprint")),
                  rs.getBytes("input"),
                  rs.getInt("attempts"),
                  rs.getBoolean("abandoned"));
          rows.add(new Row(rs.getString("id"), rs.getLong("due_at"), entry));
        }
      }
    }
    return rows;
  }

  private record Row(String id, long dueAt, ResumeEntry entry) {}

  private static String print(ResumeEntry entry) {
    return entry.fingerprint().value();
  }

  // The row's id: the entry's own id within its operation, made unique across operations.
  private static String rowId(ResumeEntry entry) {
    return digest(entry.operation() + ":" + entry.id());
  }

  private static String digest(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private static long millis(Duration d) {
    return d.compareTo(Duration.ofMillis(LONGEST_MS)) >= 0 ? LONGEST_MS : Math.max(0, d.toMillis());
  }
}
