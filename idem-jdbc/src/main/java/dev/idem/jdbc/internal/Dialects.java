package dev.idem.jdbc.internal;

import dev.idem.jdbc.JdbcDialect;

/** The three built-in dialects. Each holds only the SQL that differs between databases. */
public final class Dialects {

  /** Every column of the records table, in the order the claim statements insert them. */
  public static final String COLUMNS =
      "(id, scope, key_value, state, fingerprint, fence, owner, lease_until, expires_at, token,"
          + " token_expires_at, outcome_kind, outcome, updated_at)";

  // The lease-ended or expired condition under which an existing row may be claimed; R is the
  // stored row's alias and N the statement's "now".
  private static String claimable(String r, String n) {
    return r
        + "expires_at <= "
        + n
        + " OR "
        + r
        + "state = 'ISSUED' OR ("
        + r
        + "state = 'IN_PROGRESS' AND "
        + r
        + "lease_until <= "
        + n
        + ")";
  }

  public static final JdbcDialect POSTGRESQL =
      new Base(
          "postgresql",
          "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::BIGINT",
          "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT",
          LockStatements.POSTGRESQL) {
        // The upsert returns the row only when it claimed it; the outer query adds the row as it
        // stood when the statement began, so that a claim that did not win (a replay, above all)
        // needs no second statement. A row committed by another transaction after that moment is
        // not in it: then the query answers nothing and the store reads the row back.
        @Override
        public String claim(String t) {
          String n = now();
          return "WITH c AS ("
              + upsert(t, n)
              + ") SELECT * FROM c UNION ALL SELECT "
              + rowColumns(n)
              + " FROM "
              + t
              + " WHERE id = ? AND NOT EXISTS (SELECT 1 FROM c)";
        }

        @Override
        public boolean claimTakesIdTwice() {
          return true;
        }

        private String upsert(String t, String n) {
          return "INSERT INTO "
              + t
              + " AS r "
              + COLUMNS
              + " VALUES (?, ?, ?, 'IN_PROGRESS', ?, "
              + fenceFloor()
              + ", ?, "
              + n
              + " + ?, "
              + n
              + " + 2 * ?,"
              + " FALSE, NULL, NULL, NULL, "
              + n
              + ")"
              + " ON CONFLICT (id) DO UPDATE SET state = 'IN_PROGRESS',"
              + " fingerprint = EXCLUDED.fingerprint, fence = GREATEST(r.fence + 1, "
              + fenceFloor()
              + "), owner = EXCLUDED.owner,"
              + " lease_until = EXCLUDED.lease_until,"
              + " token = (r.token AND r.expires_at > EXCLUDED.updated_at),"
              + " token_expires_at = CASE WHEN r.expires_at > EXCLUDED.updated_at"
              + " THEN r.token_expires_at END,"
              + " expires_at = GREATEST(EXCLUDED.expires_at, CASE WHEN r.expires_at >"
              + " EXCLUDED.updated_at THEN COALESCE(r.token_expires_at, 0) ELSE 0 END),"
              + " outcome_kind = NULL, outcome = NULL, updated_at = EXCLUDED.updated_at"
              + " WHERE "
              + claimable("r.", "EXCLUDED.updated_at")
              + " RETURNING "
              + rowColumns(n);
        }

        @Override
        public boolean claimReturnsRow() {
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
          return "INSERT INTO "
              + t
              + " "
              + columns
              + " VALUES "
              + values
              + " ON CONFLICT DO NOTHING";
        }

        @Override
        public String purge(String t) {
          return "DELETE FROM "
              + t
              + " WHERE id IN (SELECT id FROM "
              + t
              + " WHERE expires_at <= "
              + now()
              + " LIMIT ? FOR UPDATE SKIP LOCKED)";
        }
      };

  public static final JdbcDialect MYSQL = new MySql("mysql", false);

  public static final JdbcDialect MARIADB = new MySql("mariadb", true);

  /**
   * MySQL 8 and MariaDB. MariaDB 10.5+ also returns the row from the upsert ({@code RETURNING}), so
   * its claim needs no read-back; MySQL has no {@code RETURNING} and reads the row back.
   */
  private static final class MySql extends Base {
    private final boolean returning;

    // The clock never goes through the session's local time: UNIX_TIMESTAMP(NOW(3)) turns local
    // time back into epoch time, which is ambiguous for the hour summer time ends in the session's
    // zone (the server picks the earlier reading, an hour off). UTC_TIMESTAMP is the statement's
    // start in UTC, so the difference to the epoch is plain arithmetic; like NOW() it is constant
    // within a statement and follows SET timestamp.
    MySql(String name, boolean returning) {
      super(
          name,
          "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)",
          "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))",
          LockStatements.MYSQL);
      this.returning = returning;
    }

    @Override
    public String claim(String t) {
      String n = now();
      // Assignments run left to right, so the decision is taken once, into owner, and every
      // later column follows it: owner is only ever this claim's fresh random token if it won.
      String won = "owner <=> VALUES(owner)";
      return "INSERT INTO "
          + t
          + " "
          + COLUMNS
          + " VALUES (?, ?, ?, 'IN_PROGRESS', ?, "
          + fenceFloor()
          + ", ?, "
          + n
          + " + ?, "
          + n
          + " + 2 * ?,"
          + " FALSE, NULL, NULL, NULL, "
          + n
          + ")"
          + " ON DUPLICATE KEY UPDATE"
          + " owner = IF("
          + claimable("", "VALUES(updated_at)")
          + ", VALUES(owner), owner),"
          + " fence = IF("
          + won
          + ", GREATEST(fence + 1, "
          + fenceFloor()
          + "), fence),"
          + " token = IF("
          + won
          + ", token AND expires_at > VALUES(updated_at), token),"
          + " token_expires_at = IF("
          + won
          + ", IF(expires_at > VALUES(updated_at),"
          + " token_expires_at, NULL), token_expires_at),"
          + " expires_at = IF("
          + won
          + ", GREATEST(VALUES(expires_at),"
          + " COALESCE(token_expires_at, 0)), expires_at),"
          + " state = IF("
          + won
          + ", 'IN_PROGRESS', state),"
          + " fingerprint = IF("
          + won
          + ", VALUES(fingerprint), fingerprint),"
          + " lease_until = IF("
          + won
          + ", VALUES(lease_until), lease_until),"
          + " outcome_kind = IF("
          + won
          + ", NULL, outcome_kind),"
          + " outcome = IF("
          + won
          + ", NULL, outcome),"
          + " updated_at = IF("
          + won
          + ", VALUES(updated_at), updated_at)"
          + (returning ? " RETURNING " + rowColumns(n) : "");
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
      return "DELETE FROM " + t + " WHERE expires_at <= " + now() + " LIMIT ?";
    }

    @Override
    public String schemaResource() {
      return "dev/idem/jdbc/schema-mysql.sql";
    }

    @Override
    public String lockSchemaResource() {
      return "dev/idem/jdbc/locks-mysql.sql";
    }

    @Override
    public String lockingRead() {
      return " LOCK IN SHARE MODE";
    }

    @Override
    public String readCommittedNextTransaction() {
      return "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";
    }
  }

  public static final JdbcDialect H2 =
      new Base(
          "h2",
          "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)",
          "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(6)) * 1000000 AS BIGINT)",
          LockStatements.H2) {
        @Override
        public String claim(String t) {
          String n = "s.now_ms";
          return "MERGE INTO "
              + t
              + " r USING (SELECT CAST(? AS CHAR(64)) AS id,"
              + " CAST(? AS VARCHAR(512)) AS scope, CAST(? AS VARCHAR(255)) AS key_value,"
              + " CAST(? AS VARCHAR(64)) AS fingerprint, CAST(? AS VARCHAR(64)) AS owner,"
              + " CAST(? AS BIGINT) AS lease_ms, CAST(? AS BIGINT) AS grace_ms, "
              + now()
              + " AS now_ms, "
              + fenceFloor()
              + " AS fence_floor) s ON r.id = s.id"
              + " WHEN MATCHED AND ("
              + claimable("r.", n)
              + ") THEN UPDATE SET"
              + " state = 'IN_PROGRESS', fingerprint = s.fingerprint, fence = GREATEST(r.fence + 1,"
              + " s.fence_floor),"
              + " owner = s.owner, lease_until = "
              + n
              + " + s.lease_ms,"
              + " token = (r.token AND r.expires_at > "
              + n
              + "),"
              + " token_expires_at = CASE WHEN r.expires_at > "
              + n
              + " THEN r.token_expires_at END,"
              + " expires_at = GREATEST("
              + n
              + " + 2 * s.grace_ms, CASE WHEN r.expires_at > "
              + n
              + " THEN COALESCE(r.token_expires_at, 0) ELSE 0 END),"
              + " outcome_kind = NULL, outcome = NULL, updated_at = "
              + n
              + " WHEN NOT MATCHED THEN INSERT "
              + COLUMNS
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
          return "DELETE FROM " + t + " WHERE expires_at <= " + now() + " FETCH FIRST ? ROWS ONLY";
        }

        @Override
        public String schemaResource() {
          return "dev/idem/jdbc/schema-h2.sql";
        }
      };

  /** The columns a claim returns, as {@code RecordRow.read} reads them, with the clock. */
  public static String rowColumns(String now) {
    return "scope, key_value, state, fingerprint, fence, owner, lease_until, expires_at, token,"
        + " outcome_kind, outcome, "
        + now
        + " AS now_ms";
  }

  private Dialects() {}

  /** What the three share. */
  private abstract static class Base implements JdbcDialect {
    private final String name;
    private final String now;
    private final String fenceFloor;
    private final LockStatements locks;

    Base(String name, String now, String fenceFloor, LockStatements locks) {
      this.name = name;
      this.now = now;
      this.fenceFloor = fenceFloor;
      this.locks = locks;
    }

    @Override
    public String fenceFloor() {
      return fenceFloor;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String now() {
      return now;
    }

    @Override
    public boolean claimReturnsRow() {
      return false;
    }

    @Override
    public String schemaResource() {
      return "dev/idem/jdbc/schema-postgresql.sql";
    }

    @Override
    public String acquireLock(String table) {
      return locks.acquire(table, now, fenceFloor);
    }

    @Override
    public boolean acquireLockReturnsRow() {
      return locks.returnsRow();
    }

    @Override
    public String purgeLocks(String table) {
      return locks.purge(table, now);
    }

    @Override
    public String lockSchemaResource() {
      return "dev/idem/jdbc/locks-" + name + ".sql";
    }

    @Override
    public String toString() {
      return "JdbcDialect[" + name + "]";
    }
  }
}
