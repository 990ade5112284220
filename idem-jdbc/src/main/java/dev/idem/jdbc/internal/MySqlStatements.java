package dev.idem.jdbc.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MySQL 8 and MariaDB 10.5+: {@code INSERT ... ON DUPLICATE KEY UPDATE} whose assignments decide
 * once, into {@code owner}, whether the statement won. MariaDB also returns the claimed row ({@code
 * RETURNING}); MySQL has no {@code RETURNING}, so its claim is read back.
 */
public final class MySqlStatements extends Statements {

  // The clock never goes through the session's local time: UNIX_TIMESTAMP(NOW(3)) turns local time
  // back into epoch time, which is ambiguous for the hour summer time ends in the session's zone
  // (the server picks the earlier reading, an hour off). UTC_TIMESTAMP is the statement's start in
  // UTC, so the difference to the epoch is plain arithmetic; like NOW() it is constant within a
  // statement and follows SET timestamp.
  private static final String NOW =
      "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
  private static final String FENCE_FLOOR =
      "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";

  // Assignments run left to right: once owner holds this statement's fresh random token, every
  // later column knows it won.
  private static final String WON = "owner <=> VALUES(owner)";

  private final boolean returning;

  /**
   * @param mariadb whether the server is MariaDB, whose upsert can return the claimed row
   */
  public MySqlStatements(boolean mariadb) {
    super(mariadb ? "mariadb" : "mysql", "mysql");
    this.returning = mariadb;
  }

  // The session's wait is kept in a session variable and put back after the claim. MariaDB gives
  // up at once; MySQL's least wait is one second (it takes 0 as 1, with a warning). A timeout
  // undoes the statement only, not the transaction.
  @Override
  public LockWait boundLockWait(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(
          "SET @idem_lock_wait = @@SESSION.innodb_lock_wait_timeout,"
              + " SESSION innodb_lock_wait_timeout = 0");
    }
    return () -> {
      try (Statement s = c.createStatement()) {
        s.execute("SET SESSION innodb_lock_wait_timeout = @idem_lock_wait");
      }
    };
  }

  // The scope column takes the table's collation (utf8mb4's default ignores case and accents, and
  // pads trailing spaces): the index finds the candidates, the byte comparison keeps the scope's.
  @Override
  public String sameScope() {
    return "scope = ? AND CAST(scope AS BINARY) = CAST(? AS BINARY)";
  }

  @Override
  public String stepsOf() {
    return "scope = ? AND CAST(scope AS BINARY) = CAST(? AS BINARY)"
        + " AND key_value = ? AND CAST(key_value AS BINARY) = CAST(? AS BINARY) AND id <> ?";
  }

  @Override
  public Object[] stepsOfParams(String scope, String value, String id) {
    return new Object[] {scope, scope, value, value, id};
  }

  @Override
  public Object[] countScopeParams(String scope, String id, int cap) {
    return new Object[] {scope, scope, id, cap};
  }

  @Override
  public boolean isLockWaitTimeout(SQLException e) {
    return e.getErrorCode() == 1205;
  }

  // With innodb_rollback_on_timeout a lock wait timeout rolls back the whole transaction.
  @Override
  public boolean lockWaitTimeoutAbortsTransaction(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@innodb_rollback_on_timeout")) {
      return rs.next() && rs.getBoolean(1);
    }
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
    return "INSERT INTO "
        + t
        + " "
        + RECORD_COLUMNS
        + " VALUES "
        + claimedRow()
        + " ON DUPLICATE KEY UPDATE owner = IF("
        + claimable("", "VALUES(updated_at)", "VALUES(fingerprint)")
        + ", VALUES(owner), owner),"
        + ifWon("fence", "GREATEST(fence + 1, " + FENCE_FLOOR + ")")
        + ","
        + ifWon("token", "token AND expires_at > VALUES(updated_at)")
        + ","
        + ifWon("token_expires_at", "IF(expires_at > VALUES(updated_at), token_expires_at, NULL)")
        + ","
        + ifWon("expires_at", "GREATEST(VALUES(expires_at), COALESCE(token_expires_at, 0))")
        + ","
        + ifWon("state", "'IN_PROGRESS'")
        + ","
        + ifWon("fingerprint", "VALUES(fingerprint)")
        + ","
        + ifWon("lease_until", "VALUES(lease_until)")
        + ","
        + ifWon("outcome_kind", "NULL")
        + ","
        + ifWon("outcome", "NULL")
        + ","
        + ifWon("updated_at", "VALUES(updated_at)")
        + (returning ? " RETURNING " + rowColumns(NOW) : "");
  }

  // An insert that skips a key that is there: InnoDB locks that row shared, as a locking read
  // does (the upsert locks it exclusively), and writes nothing; the store then reads the row back.
  // IGNORE, not a duplicate-key error, which MariaDB's driver logs as a warning: the key's parts
  // are checked to fit their columns before (scope 512 characters, value 255 visible ASCII), so
  // that IGNORE can turn nothing else into a warning.
  @Override
  public String claimNew(String t) {
    return insertIfAbsent(t, RECORD_COLUMNS, claimedRow())
        + (returning ? " RETURNING " + rowColumns(NOW) : "");
  }

  private static String ifWon(String column, String value) {
    return " " + column + " = IF(" + WON + ", " + value + ", " + column + ")";
  }

  @Override
  public boolean claimReturnsRow() {
    return returning;
  }

  @Override
  public String insertIfAbsent(String t, String columns, String values) {
    return "INSERT IGNORE INTO " + t + " " + columns + " VALUES " + values;
  }

  @Override
  public String insertIgnoringDuplicates(String t, String columns, String values) {
    return insertIfAbsent(t, columns, values);
  }

  @Override
  public String purge(String t) {
    return "DELETE FROM " + t + " WHERE expires_at <= " + NOW + " LIMIT ?";
  }

  @Override
  public String lockingRead() {
    return " LOCK IN SHARE MODE";
  }

  @Override
  public String readCommittedNextTransaction() {
    return "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";
  }

  @Override
  public String acquireLock(String t) {
    return "INSERT INTO "
        + t
        + " "
        + LOCK_COLUMNS
        + " VALUES (?, ?, "
        + FENCE_FLOOR
        + ", "
        + NOW
        + " + ?, "
        + NOW
        + " + ?) ON DUPLICATE KEY UPDATE owner = IF("
        + free("", NOW)
        + ", VALUES(owner), owner),"
        + ifWon("fence", "GREATEST(fence + 1, " + FENCE_FLOOR + ")")
        + ","
        + ifWon("lease_until", "VALUES(lease_until)")
        + ","
        + ifWon("expires_at", "VALUES(expires_at)");
  }

  @Override
  public String purgeLocks(String t) {
    return "DELETE FROM " + t + " WHERE expires_at <= " + NOW + " LIMIT ?";
  }
}
