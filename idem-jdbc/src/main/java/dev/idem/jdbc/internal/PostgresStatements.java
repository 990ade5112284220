package dev.idem.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;

/** PostgreSQL 9.5 and later: upserts that return their row, purges that skip locked rows. */
public final class PostgresStatements extends Statements {

  private static final String NOW = "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::BIGINT";
  private static final String FENCE_FLOOR =
      "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT";

  public PostgresStatements() {
    super("postgresql", "postgresql");
  }

  @Override
  public String now() {
    return NOW;
  }

  @Override
  public String fenceFloor() {
    return FENCE_FLOOR;
  }

  // The insert or upsert returns the row only when it claimed it; the outer query adds the row as
  // it stood when the statement began, so that a claim that did not win (a replay through
  // claimNew, a takeover the upsert refuses) needs no second statement. A row committed by another
  // transaction after that moment is not in it: then the query answers nothing and the store
  // reads the row back.
  @Override
  public String claim(String t) {
    return orExisting(t, upsert(t));
  }

  // ON CONFLICT DO NOTHING takes no lock on the row it meets and, inserting nothing, leaves the
  // transaction without an id: a replay reads, and its commit writes nothing.
  @Override
  public String claimNew(String t) {
    return orExisting(t, insert(t) + " ON CONFLICT (id) DO NOTHING RETURNING " + rowColumns(NOW));
  }

  private static String orExisting(String t, String claiming) {
    return "WITH c AS ("
        + claiming
        + ") SELECT * FROM c UNION ALL SELECT "
        + rowColumns(NOW)
        + " FROM "
        + t
        + " WHERE id = ? AND NOT EXISTS (SELECT 1 FROM c)";
  }

  private String insert(String t) {
    return "INSERT INTO " + t + " AS r " + RECORD_COLUMNS + " VALUES " + claimedRow();
  }

  private String upsert(String t) {
    return insert(t)
        + " ON CONFLICT (id) DO UPDATE SET state = 'IN_PROGRESS',"
        + " fingerprint = EXCLUDED.fingerprint, fence = GREATEST(r.fence + 1, "
        + FENCE_FLOOR
        + "), owner = EXCLUDED.owner,"
        + " lease_until = EXCLUDED.lease_until,"
        + " token = (r.token AND r.expires_at > EXCLUDED.updated_at),"
        + " token_expires_at = CASE WHEN r.expires_at > EXCLUDED.updated_at"
        + " THEN r.token_expires_at END,"
        + " expires_at = GREATEST(EXCLUDED.expires_at, CASE WHEN r.expires_at >"
        + " EXCLUDED.updated_at THEN COALESCE(r.token_expires_at, 0) ELSE 0 END),"
        + " outcome_kind = NULL, outcome = NULL, updated_at = EXCLUDED.updated_at"
        + " WHERE "
        + claimable("r.", "EXCLUDED.updated_at", "EXCLUDED.fingerprint")
        + " RETURNING "
        + rowColumns(NOW);
  }

  // A lock that ends with the transaction: a joined claim never waits on the row another joined
  // transaction inserted, whose lock PostgreSQL offers no way to give up on without aborting the
  // caller's transaction.
  @Override
  public boolean joinedClaimMayGo(Connection c, String digest) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_xact_lock(?)")) {
      ps.setLong(1, HexFormat.fromHexDigitsToLong(digest, 0, 16));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  @Override
  public boolean isLockWaitTimeout(SQLException e) {
    return "55P03".equals(e.getSQLState());
  }

  // Any error aborts a PostgreSQL transaction: a lock_timeout the application set included.
  @Override
  public boolean lockWaitTimeoutAbortsTransaction(Connection c) {
    return true;
  }

  @Override
  public boolean claimReturnsRow() {
    return true;
  }

  @Override
  public boolean claimTakesIdTwice() {
    return true;
  }

  @Override
  public String insertIfAbsent(String t, String columns, String values) {
    return "INSERT INTO "
        + t
        + " "
        + columns
        + " VALUES "
        + values
        + " ON CONFLICT (id) DO NOTHING";
  }

  @Override
  public String insertIgnoringDuplicates(String t, String columns, String values) {
    return "INSERT INTO " + t + " " + columns + " VALUES " + values + " ON CONFLICT DO NOTHING";
  }

  @Override
  public String purge(String t) {
    return "DELETE FROM "
        + t
        + " WHERE id IN (SELECT id FROM "
        + t
        + " WHERE expires_at <= "
        + NOW
        + " LIMIT ? FOR UPDATE SKIP LOCKED)";
  }

  // The upsert goes ahead only when the statement's snapshot shows the lock free or missing: an
  // acquisition refused because the lock was held when it began neither locks the row nor writes
  // (an upsert that meets a held row locks it anyway, and commits that lock), nor waits for a
  // release under way. The upsert's own condition decides a race with another acquisition.
  @Override
  public String acquireLock(String t) {
    return "INSERT INTO "
        + t
        + " AS l "
        + LOCK_COLUMNS
        + " SELECT ?, ?, "
        + FENCE_FLOOR
        + ", "
        + NOW
        + " + ?, "
        + NOW
        + " + ? WHERE NOT EXISTS (SELECT 1 FROM "
        + t
        + " h WHERE h.name = ? AND NOT ("
        + free("h.", NOW)
        + "))"
        + " ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner,"
        + " fence = GREATEST(l.fence + 1, "
        + FENCE_FLOOR
        + "),"
        + " lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at"
        + " WHERE "
        + free("l.", NOW)
        + " RETURNING fence, lease_until";
  }

  @Override
  public boolean acquireLockTakesNameTwice() {
    return true;
  }

  @Override
  public boolean acquireLockReturnsRow() {
    return true;
  }

  // The outer condition is checked again on a row that an acquisition changed meanwhile, so a lock
  // taken after the inner select is never deleted.
  @Override
  public String purgeLocks(String t) {
    return "DELETE FROM "
        + t
        + " WHERE expires_at <= "
        + NOW
        + " AND name IN (SELECT name FROM "
        + t
        + " WHERE expires_at <= "
        + NOW
        + " LIMIT ? FOR UPDATE SKIP LOCKED)";
  }
}
