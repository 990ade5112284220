package dev.idem.bench;

import static dev.idem.testsupport.Stages.now;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.JdbcSchema;
import dev.idem.jdbc.JdbcStoreConfig;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * PostgreSQL or MariaDB in the scale benchmark: the store on a table of its own ({@value #TABLE},
 * dropped on close), filled by {@code INSERT ... SELECT} over a number series, each row a copy of
 * the template row with its key and its id (the digest of scope and key, computed by the database
 * the way {@link dev.idem.core.IdempotencyKey#digest()} computes it) replaced.
 */
final class JdbcScaleTarget implements ScaleTarget {

  static final String TABLE = "bench_scale_records";
  private static final String BYTES_TABLE = "bench_scale_bytes";

  // Rows per INSERT ... SELECT, so that no statement holds a transaction for minutes.
  private static final long CHUNK = 500_000;

  private final BenchDatabase database;
  private final HikariDataSource pool;
  private final JdbcIdempotencyStore store;
  private final boolean postgres;
  private final AutoCloseable server;

  JdbcScaleTarget(BenchDatabase database, int connections) throws SQLException {
    this(database, connections, null);
  }

  /**
   * @param server the database's server when it is the run's own (closed last), or null; on
   *     PostgreSQL the table and its indexes are then read into the server's buffers after every
   *     fill
   */
  JdbcScaleTarget(BenchDatabase database, int connections, AutoCloseable server)
      throws SQLException {
    this.database = database;
    this.server = server;
    this.postgres = database.name().equals("PostgreSQL");
    this.pool = BenchJdbc.pool(database.url(), "scale-" + database.name(), connections);
    drop(TABLE);
    JdbcStoreConfig config = config(TABLE);
    JdbcSchema.createIfMissing(pool, config);
    this.store = new JdbcIdempotencyStore(pool, config);
  }

  @Override
  public String name() {
    return database.name();
  }

  @Override
  public IdempotencyStore store() {
    return store;
  }

  @Override
  public void fill(String prefix, long from, long to, boolean expired) throws SQLException {
    String template = complete(store, RECEIPT);
    for (long start = from; start < to; start += CHUNK) {
      copy(TABLE, template, prefix, start, Math.min(to, start + CHUNK), expired);
    }
    analyze(TABLE);
    if (postgres && server != null) {
      warm(TABLE);
    }
  }

  // Rows loaded in bulk pass through a small ring of buffers, and so does VACUUM: after a fill the
  // table sits in the kernel's page cache, not in shared_buffers, where a server in steady use
  // keeps what it reads. The checkpoint writes the fill's pages now rather than in a window.
  private void warm(String table) throws SQLException {
    BenchJdbc.execute(pool, "CHECKPOINT");
    BenchJdbc.execute(pool, "CREATE EXTENSION IF NOT EXISTS pg_prewarm");
    BenchJdbc.execute(
        pool,
        "SELECT pg_prewarm(c.oid) FROM pg_class c WHERE c.oid = '%s'::regclass OR c.oid IN"
                .formatted(table)
            + " (SELECT indexrelid FROM pg_index WHERE indrelid = '%s'::regclass)"
                .formatted(table));
  }

  @Override
  public double bytesPerRecord(int outcomeBytes, int records) throws SQLException {
    drop(BYTES_TABLE);
    JdbcStoreConfig config = config(BYTES_TABLE);
    JdbcSchema.createIfMissing(pool, config);
    try {
      byte[] outcome = new byte[outcomeBytes];
      ThreadLocalRandom.current().nextBytes(outcome);
      String template = complete(new JdbcIdempotencyStore(pool, config), outcome);
      copy(BYTES_TABLE, template, "size-", 1, records, false);
      analyze(BYTES_TABLE);
      return size(BYTES_TABLE) / (double) records;
    } finally {
      drop(BYTES_TABLE);
    }
  }

  @Override
  public int purge(int limit) {
    return store.purgeExpired(limit);
  }

  // Claims and completes a key of its own through the store; returns the row's id.
  private static String complete(JdbcIdempotencyStore store, byte[] outcome) {
    ClaimRequest request =
        ClaimRequest.of(
            ScaleTarget.key("template-", System.nanoTime()),
            Fingerprint.NONE,
            IdempotencyConfig.DEFAULT_LEASE);
    if (!(now(store.claim(request)) instanceof ClaimResult.Claimed claimed)) {
      throw new IllegalStateException("a fresh template key was not claimed");
    }
    now(
        store.complete(
            claimed.lease(), Outcome.success(outcome), IdempotencyConfig.DEFAULT_RETENTION));
    return request.key().digest();
  }

  private void copy(String table, String template, String prefix, long from, long to, boolean gone)
      throws SQLException {
    List<String> columns = columns(table);
    List<String> values = new ArrayList<>();
    String n = postgres ? "g.n" : "g.seq";
    String key = "CONCAT('" + prefix + "', " + n + ")";
    for (String column : columns) {
      values.add(
          switch (column) {
            case "id" -> digest("CONCAT(OCTET_LENGTH(t0.scope), ':', t0.scope, ':', " + key + ")");
            case "key_value" -> key;
            case "expires_at" -> gone ? "1" : "t0.expires_at";
            default -> "t0." + column;
          });
    }
    String series =
        postgres
            ? "generate_series(%d, %d) AS g(n)".formatted(from, to - 1)
            : "seq_%d_to_%d AS g".formatted(from, to - 1);
    String sql =
        "INSERT INTO %s (%s) SELECT %s FROM %s t0, %s WHERE t0.id = ?"
            .formatted(table, String.join(", ", columns), String.join(", ", values), table, series);
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, template);
      ps.executeUpdate();
    }
  }

  private String digest(String text) {
    return postgres
        ? "encode(sha256(convert_to(" + text + ", 'UTF8')), 'hex')"
        : "SHA2(" + text + ", 256)";
  }

  private List<String> columns(String table) throws SQLException {
    List<String> columns = new ArrayList<>();
    try (Connection c = pool.getConnection()) {
      DatabaseMetaData meta = c.getMetaData();
      // The connection's own schema: a same-named table elsewhere on the server must not add
      // its columns.
      try (ResultSet rs = meta.getColumns(c.getCatalog(), c.getSchema(), table, null)) {
        while (rs.next()) {
          columns.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
        }
      }
    }
    if (!columns.contains("id") || !columns.contains("key_value")) {
      throw new IllegalStateException(table + " is not a store table: " + columns);
    }
    return columns;
  }

  // On PostgreSQL a VACUUM too: rows loaded in bulk are read for the first time with their hint
  // bits unset, and that first read writes the page; a table in steady use was vacuumed long ago.
  private void analyze(String table) throws SQLException {
    BenchJdbc.execute(pool, (postgres ? "VACUUM (ANALYZE) " : "ANALYZE TABLE ") + table);
  }

  // Heap, TOAST and indexes; for InnoDB the clustered index (rows and their off-page columns)
  // and the secondary indexes, as InnoDB counts their pages.
  private long size(String table) throws SQLException {
    String sql =
        postgres
            ? "SELECT pg_total_relation_size('" + table + "')"
            : "SELECT data_length + index_length FROM information_schema.tables"
                + " WHERE table_schema = DATABASE() AND table_name = '"
                + table
                + "'";
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private JdbcStoreConfig config(String table) {
    return JdbcStoreConfig.custom(database.dialect()).table(table).build();
  }

  private void drop(String table) throws SQLException {
    BenchJdbc.execute(pool, "DROP TABLE IF EXISTS " + table);
  }

  @Override
  public void close() throws SQLException {
    try {
      drop(TABLE);
    } finally {
      pool.close();
      if (server != null) {
        try {
          server.close();
        } catch (Exception e) {
          throw new IllegalStateException("the run's own database server did not stop", e);
        }
      }
    }
  }
}
