package dev.idem.jdbc.internal;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.lock.LockStorage;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Locks in a table, one row per name, by the database's clock: taking is one conditional upsert
 * (then a read of the row where the database cannot return it); renewing, checking and releasing
 * each match name, owner and fence. A released row stays with no owner, so the fence keeps growing,
 * until it has been idle for the retention.
 */
public final class JdbcLockStorage implements LockStorage {

  private static final int RACES = 8;
  // Keeps "now + lease + retention" inside a BIGINT however long a caller asks for.
  private static final long LONGEST_MS = Long.MAX_VALUE / 4;

  private final Jdbc jdbc;
  private final Statements dialect;
  private final LockSql sql;
  private final long retentionMs;

  public JdbcLockStorage(
      DataSource dataSource, Statements dialect, String table, Duration retention) {
    this.jdbc = new Jdbc(dataSource, null, dev.idem.jdbc.JdbcStoreConfig.DEFAULT_CALL_TIMEOUT);
    this.dialect = dialect;
    this.sql = LockSql.of(dialect, table);
    this.retentionMs = millis(retention);
  }

  @Override
  public Attempt acquire(String name, String owner, Duration lease, boolean waiting) {
    long leaseMs = millis(lease);
    return jdbc.run(
        "tryLock",
        c -> {
          for (int race = 0; race < RACES; race++) {
            try {
              Long fence = attempt(c, name, owner, leaseMs);
              return fence == null ? Attempt.refused(Duration.ZERO) : Attempt.taken(fence);
            } catch (SQLException e) {
              // Two first acquisitions of a name raced on the insert, or deadlocked; the row
              // exists now, so the next attempt decides.
              if (!dialect.isDuplicateKey(e) && !dialect.isTransient(e)) {
                throw e;
              }
              if (!c.getAutoCommit()) {
                c.rollback();
              }
            }
          }
          throw new IdempotencyStoreException("lock " + name + " kept racing; try again");
        });
  }

  @Override
  public boolean renew(String name, String owner, long fence, Duration lease) {
    long ms = millis(lease);
    return jdbc.run(
            "renew", c -> Params.update(c, sql.renew(), ms, ms + retentionMs, name, owner, fence))
        == 1;
  }

  @Override
  public boolean isHeld(String name, String owner, long fence) {
    return jdbc.run("isHeld", c -> Params.exists(c, sql.held(), name, owner, fence));
  }

  @Override
  public boolean release(String name, String owner, long fence) {
    return jdbc.run("unlock", c -> Params.update(c, sql.release(), retentionMs, name, owner, fence))
        == 1;
  }

  /** Deletes up to {@code limit} rows idle for the retention; see {@code JdbcLockProvider}. */
  public int purgeIdle(int limit) {
    return jdbc.run("purgeIdle", c -> Params.update(c, sql.purge(), limit));
  }

  /** Returns the fence if this attempt took the lock, or null. */
  private @Nullable Long attempt(Connection c, String name, String owner, long leaseMs)
      throws SQLException {
    Object[] params =
        sql.acquireTakesNameTwice()
            ? new Object[] {name, owner, leaseMs, leaseMs + retentionMs, name}
            : new Object[] {name, owner, leaseMs, leaseMs + retentionMs};
    if (sql.acquireReturnsRow()) {
      try (PreparedStatement ps = c.prepareStatement(sql.acquire())) {
        Params.bind(ps, params);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? rs.getLong("fence") : null;
        }
      }
    }
    Params.update(c, sql.acquire(), params);
    try (PreparedStatement ps = c.prepareStatement(sql.select())) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && owner.equals(rs.getString("owner")) ? rs.getLong("fence") : null;
      }
    }
  }

  private static long millis(Duration d) {
    return d.compareTo(Duration.ofMillis(LONGEST_MS)) >= 0 ? LONGEST_MS : Math.max(1, d.toMillis());
  }
}
