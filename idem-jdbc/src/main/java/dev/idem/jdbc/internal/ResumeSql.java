package dev.idem.jdbc.internal;

/**
 * Every statement of the JDBC resume log, built once from a dialect and a validated table name.
 * Values are bound as parameters; only the table name, the dialect's clock and its row limit are
 * spliced in. Every statement that changes an entry names it by id and fingerprint and checks its
 * state, so a completer acting on an entry another one changed meanwhile, or that a later request
 * of the key replaced, changes nothing.
 */
public record ResumeSql(
    String dropExpired,
    String insert,
    String due,
    String take,
    String failed,
    String abandon,
    String abandoned,
    String reopen,
    String forget,
    String purge) {

  private static final String COLUMNS =
      "id, operation, scope, key_value, fingerprint, input, attempts, abandoned, due_at,"
          + " expires_at";

  /** Builds the statements for {@code table} in {@code dialect}. */
  public static ResumeSql of(Statements dialect, String table) {
    String n = dialect.now();
    String live = " AND expires_at > " + n;
    String request = " WHERE id = ? AND fingerprint = ?";
    String pending = request + " AND abandoned = FALSE" + live;
    String read =
        "SELECT id, scope, key_value, fingerprint, input, attempts, abandoned, due_at FROM "
            + table
            + " WHERE operation = ? AND abandoned = ";
    return new ResumeSql(
        "DELETE FROM " + table + " WHERE id = ? AND (expires_at <= " + n + " OR fingerprint <> ?)",
        dialect.insertIfAbsent(
            table,
            "(" + COLUMNS + ")",
            "(?, ?, ?, ?, ?, ?, 0, FALSE, " + n + " + ?, " + n + " + ?)"),
        read + "FALSE AND due_at <= " + n + live + " ORDER BY due_at" + dialect.firstRows(),
        "UPDATE "
            + table
            + " SET due_at = "
            + n
            + " + ? WHERE id = ? AND abandoned = FALSE"
            + live
            + " AND due_at = ?",
        "UPDATE " + table + " SET attempts = attempts + 1, due_at = " + n + " + ?" + pending,
        "UPDATE " + table + " SET attempts = attempts + 1, abandoned = TRUE" + pending,
        read + "TRUE" + live + " ORDER BY due_at" + dialect.firstRows(),
        "UPDATE "
            + table
            + " SET attempts = 0, abandoned = FALSE, due_at = "
            + n
            + request
            + " AND abandoned = TRUE"
            + live,
        "DELETE FROM " + table + request + live,
        dialect.purge(table));
  }
}
