package dev.idem.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * H2 2.x: {@code MERGE ... USING} with the clock read once into the source row, so that the match
 * and every assignment see one instant. H2 has no insert that skips a duplicate of any unique key.
 */
public final class H2Statements extends Statements {

  private static final String NOW = "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)";
  private static final String FENCE_FLOOR =
      "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(6)) * 1000000 AS BIGINT)";

  public H2Statements() {
    super("h2", "h2");
  }

  // A lock timeout fails the statement only; the transaction goes on.
  @Override
  public LockWait boundLockWait(Connection c) throws SQLException {
    int before;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT LOCK_TIMEOUT()")) {
      rs.next();
      before = rs.getInt(1);
    }
    setLockTimeout(c, 0);
    return () -> setLockTimeout(c, before);
  }

  private static void setLockTimeout(Connection c, int millis) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SET LOCK_TIMEOUT ?")) {
      ps.setInt(1, millis);
      ps.execute();
    }
  }

  @Override
  public boolean isLockWaitTimeout(SQLException e) {
    return e.getErrorCode() == 50200;
  }

  @Override
  public String now() {
    return NOW;
  }

  @Override
  public String fenceFloor() {
    return FENCE_FLOOR;
  }

  @Override
  public String claim(String t) {
    String n = "s.now_ms";
    return "MERGE INTO "
        + t
        + " r USING (SELECT CAST(? AS CHAR(64)) AS id,"
        + " CAST(? AS VARCHAR(512)) AS scope, CAST(? AS VARCHAR(255)) AS key_value,"
        + " CAST(? AS VARCHAR(64)) AS fingerprint, CAST(? AS VARCHAR(64)) AS owner,"
        + " CAST(? AS BIGINT) AS lease_ms, CAST(? AS BIGINT) AS grace_ms, "
        + NOW
        + " AS now_ms, "
        + FENCE_FLOOR
        + " AS fence_floor) s ON r.id = s.id"
        + " WHEN MATCHED AND ("
        + claimable("r.", n, "s.fingerprint")
        + ") THEN UPDATE SET"
        + " state = 'IN_PROGRESS', fingerprint = s.fingerprint, fence = GREATEST(r.fence + 1,"
        + " s.fence_floor), owner = s.owner, lease_until = "
        + n
        + " + s.lease_ms, token = (r.token AND r.expires_at > "
        + n
        + "), token_expires_at = CASE WHEN r.expires_at > "
        + n
        + " THEN r.token_expires_at END, expires_at = GREATEST("
        + n
        + " + 2 * s.grace_ms, CASE WHEN r.expires_at > "
        + n
        + " THEN COALESCE(r.token_expires_at, 0) ELSE 0 END),"
        + " outcome_kind = NULL, outcome = NULL, updated_at = "
        + n
        + " WHEN NOT MATCHED THEN INSERT "
        + RECORD_COLUMNS
        + " VALUES (s.id, s.scope, s.key_value, 'IN_PROGRESS', s.fingerprint, s.fence_floor,"
        + " s.owner, "
        + n
        + " + s.lease_ms, "
        + n
        + " + 2 * s.grace_ms, FALSE, NULL, NULL, NULL, "
        + n
        + ")";
  }

  @Override
  public String insertIfAbsent(String t, String columns, String values) {
    return "INSERT INTO " + t + " " + columns + " VALUES " + values;
  }

  @Override
  public String purge(String t) {
    return "DELETE FROM " + t + " WHERE expires_at <= " + NOW + " FETCH FIRST ? ROWS ONLY";
  }

  @Override
  public String firstRows() {
    return " FETCH FIRST ? ROWS ONLY";
  }

  @Override
  public String acquireLock(String t) {
    return "MERGE INTO "
        + t
        + " l USING (SELECT CAST(? AS VARCHAR(255)) AS name, CAST(? AS VARCHAR(64)) AS owner,"
        + " CAST(? AS BIGINT) AS lease_ms, CAST(? AS BIGINT) AS keep_ms, "
        + NOW
        + " AS now_ms, "
        + FENCE_FLOOR
        + " AS fence_floor) s ON l.name = s.name"
        + " WHEN MATCHED AND ("
        + free("l.", "s.now_ms")
        + ") THEN UPDATE SET owner = s.owner, fence = GREATEST(l.fence + 1, s.fence_floor),"
        + " lease_until = s.now_ms + s.lease_ms, expires_at = s.now_ms + s.keep_ms"
        + " WHEN NOT MATCHED THEN INSERT "
        + LOCK_COLUMNS
        + " VALUES (s.name, s.owner, s.fence_floor, s.now_ms + s.lease_ms,"
        + " s.now_ms + s.keep_ms)";
  }

  @Override
  public String purgeLocks(String t) {
    return "DELETE FROM " + t + " WHERE expires_at <= " + NOW + " FETCH FIRST ? ROWS ONLY";
  }
}
