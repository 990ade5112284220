package dev.idem.jdbc.internal;

/**
 * The lock statements that differ between databases, one constant per database, which {@link
 * Dialects} hands out. Every acquisition binds the same four parameters: name, owner, lease ms, and
 * lease ms plus the fence retention in ms (when the row may be purged if nobody takes it again).
 *
 * <p>A row may be taken when it is released ({@code owner IS NULL}) or its lease has ended; taking
 * it writes a fresh owner and the greater of {@code fence + 1} and the fence floor (the database's
 * clock in microseconds); a missing row is inserted with the floor, so fences only grow even after
 * a lock row was purged.
 */
enum LockStatements {
  POSTGRESQL {
    @Override
    String acquire(String t, String n, String f) {
      return "INSERT INTO "
          + t
          + " AS l "
          + COLUMNS
          + " VALUES (?, ?, "
          + f
          + ", "
          + n
          + " + ?, "
          + n
          + " + ?)"
          + " ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner,"
          + " fence = GREATEST(l.fence + 1, "
          + f
          + "),"
          + " lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at"
          + " WHERE "
          + free("l.", n)
          + " RETURNING fence, lease_until";
    }

    @Override
    boolean returnsRow() {
      return true;
    }

    // The outer condition is checked again on a row that an acquisition changed meanwhile, so a
    // lock taken after the inner select is never deleted.
    @Override
    String purge(String t, String n) {
      return "DELETE FROM "
          + t
          + " WHERE expires_at <= "
          + n
          + " AND name IN (SELECT name FROM "
          + t
          + " WHERE expires_at <= "
          + n
          + " LIMIT ? FOR UPDATE SKIP LOCKED)";
    }
  },

  MYSQL {
    // Assignments run left to right, so the decision is taken once, into owner; the later columns
    // change only where owner now equals this attempt's fresh random token, that is, if it won.
    @Override
    String acquire(String t, String n, String f) {
      String won = "owner <=> VALUES(owner)";
      return "INSERT INTO "
          + t
          + " "
          + COLUMNS
          + " VALUES (?, ?, "
          + f
          + ", "
          + n
          + " + ?, "
          + n
          + " + ?)"
          + " ON DUPLICATE KEY UPDATE owner = IF("
          + free("", n)
          + ", VALUES(owner), owner),"
          + " fence = IF("
          + won
          + ", GREATEST(fence + 1, "
          + f
          + "), fence),"
          + " lease_until = IF("
          + won
          + ", VALUES(lease_until), lease_until),"
          + " expires_at = IF("
          + won
          + ", VALUES(expires_at), expires_at)";
    }

    @Override
    String purge(String t, String n) {
      return "DELETE FROM " + t + " WHERE expires_at <= " + n + " LIMIT ?";
    }
  },

  H2 {
    @Override
    String acquire(String t, String n, String f) {
      return "MERGE INTO "
          + t
          + " l USING (SELECT CAST(? AS VARCHAR(255)) AS name, CAST(? AS VARCHAR(64)) AS owner,"
          + " CAST(? AS BIGINT) AS lease_ms, CAST(? AS BIGINT) AS keep_ms, "
          + n
          + " AS now_ms, "
          + f
          + " AS fence_floor) s ON l.name = s.name"
          + " WHEN MATCHED AND ("
          + free("l.", "s.now_ms")
          + ") THEN UPDATE SET owner = s.owner, fence = GREATEST(l.fence + 1, s.fence_floor),"
          + " lease_until = s.now_ms + s.lease_ms, expires_at = s.now_ms + s.keep_ms"
          + " WHEN NOT MATCHED THEN INSERT "
          + COLUMNS
          + " VALUES (s.name, s.owner, s.fence_floor, s.now_ms + s.lease_ms,"
          + " s.now_ms + s.keep_ms)";
    }

    @Override
    String purge(String t, String n) {
      return "DELETE FROM " + t + " WHERE expires_at <= " + n + " FETCH FIRST ? ROWS ONLY";
    }
  };

  static final String COLUMNS = "(name, owner, fence, lease_until, expires_at)";

  /**
   * The one-statement acquisition on table {@code t}, with {@code n} as the clock and {@code f} as
   * the fence floor (a taken lock's fence is the greater of the row's fence + 1 and {@code f}).
   */
  abstract String acquire(String t, String n, String f);

  /** Whether {@link #acquire} returns {@code fence, lease_until} of a lock it took. */
  boolean returnsRow() {
    return false;
  }

  /** Deletes at most {@code ?} rows whose {@code expires_at} has passed. */
  abstract String purge(String t, String n);

  private static String free(String row, String now) {
    return row + "owner IS NULL OR " + row + "lease_until <= " + now;
  }
}
