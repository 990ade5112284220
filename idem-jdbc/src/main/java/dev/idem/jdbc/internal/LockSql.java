package dev.idem.jdbc.internal;

/**
 * Every statement the JDBC lock provider runs, built once from a dialect and a validated table
 * name. Values are bound as parameters; only the table name and the dialect's clock are spliced in.
 * The statements that act on a held lock all match name, owner and fence, so a handle whose lock
 * was taken over (or whose row was purged and whose fence came round again) never touches it.
 */
public record LockSql(
    String acquire,
    boolean acquireTakesNameTwice,
    boolean acquireReturnsRow,
    String select,
    String renew,
    String release,
    String held,
    String purge) {

  private static final String OWNED = " WHERE name = ? AND owner = ? AND fence = ?";

  /** Builds the statements for {@code table} in {@code dialect}. */
  public static LockSql of(Statements dialect, String table) {
    String n = dialect.now();
    return new LockSql(
        dialect.acquireLock(table),
        dialect.acquireLockTakesNameTwice(),
        dialect.acquireLockReturnsRow(),
        "SELECT owner, fence, lease_until FROM " + table + " WHERE name = ?",
        "UPDATE "
            + table
            + " SET lease_until = "
            + n
            + " + ?, expires_at = "
            + n
            + " + ?"
            + OWNED
            + " AND lease_until > "
            + n,
        "UPDATE "
            + table
            + " SET owner = NULL, lease_until = "
            + n
            + ", expires_at = "
            + n
            + " + ?"
            + OWNED,
        "SELECT 1 FROM " + table + OWNED + " AND lease_until > " + n,
        dialect.purgeLocks(table));
  }
}
