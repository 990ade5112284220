package dev.idem.jdbc.internal;

import org.jspecify.annotations.Nullable;

/**
 * Every statement the JDBC store runs, built once from a dialect and a validated table name. All
 * values are bound as parameters; only the table name and the dialect's clock are spliced in.
 *
 * <p>{@code claimNew}, where the dialect has it, is the first attempt of a claim: it inserts an
 * absent key and only reads a row that is there ({@link Statements#claimNew}).
 *
 * <p>{@code select} is a plain read (what {@code find} runs); {@code readBack} is the same read as
 * the claim's read-back, which must see the latest committed row even inside a caller's older
 * snapshot (the dialect's {@link Statements#lockingRead()}).
 *
 * <p>{@code countScope} counts the live records of a scope other than one key, up to a limit: what
 * a capped claim checks, reading at most the cap's number of index entries.
 *
 * <p>{@code evictToIssued} and {@code evict} are an operator's release and removal: they match the
 * live row by its state and fence instead of its owner; {@code evictSteps} then removes the rows of
 * the evicted key's steps, which share its scope and value under other ids.
 *
 * <p>{@code insertCompleted} writes a completed record where none is, in one statement: the inbox's
 * claim, whose transaction shows the row only together with the message's effect.
 */
public record StoreSql(
    String claim,
    @Nullable String claimNew,
    boolean claimReturnsRow,
    String claimToken,
    String select,
    String readBack,
    String complete,
    String releaseToIssued,
    String deleteOwned,
    String evictToIssued,
    String evict,
    String evictSteps,
    String renew,
    String selectLeaseUntil,
    String deleteExpired,
    String issue,
    String purge,
    String countScope,
    String insertCompleted) {

  private static final String OWNED =
      " WHERE id = ? AND state = 'IN_PROGRESS' AND fence = ? AND owner = ?";

  /** Builds the statements for {@code table} in {@code dialect}. */
  public static StoreSql of(Statements dialect, String table) {
    String n = dialect.now();
    String toIssued =
        "UPDATE "
            + table
            + " SET state = 'ISSUED', fingerprint = '', owner = NULL,"
            + " lease_until = NULL, expires_at = token_expires_at, updated_at = "
            + n;
    String tokenLive = " AND token = TRUE AND token_expires_at > " + n;
    String evicted = " WHERE id = ? AND state = ? AND fence = ? AND expires_at > " + n;
    String select =
        "SELECT scope, key_value, state, fingerprint, fence, owner, lease_until, expires_at, token,"
            + " outcome_kind, outcome, "
            + n
            + " AS now_ms FROM "
            + table
            + " WHERE id = ?";
    return new StoreSql(
        dialect.claim(table),
        dialect.claimNew(table),
        dialect.claimReturnsRow(),
        "UPDATE "
            + table
            + " SET state = 'IN_PROGRESS', fingerprint = ?, fence = GREATEST(fence + 1, "
            + dialect.fenceFloor()
            + "),"
            + " owner = ?, lease_until = "
            + n
            + " + ?,"
            + " expires_at = GREATEST("
            + n
            + " + 2 * ?, COALESCE(token_expires_at, 0)),"
            + " updated_at = "
            + n
            + " WHERE id = ? AND token = TRUE AND expires_at > "
            + n
            + " AND (state = 'ISSUED' OR (state = 'IN_PROGRESS' AND lease_until <= "
            + n
            + " AND (fingerprint = ? OR fingerprint = '' OR ? = 1)))",
        select,
        select + dialect.lockingRead(),
        "UPDATE "
            + table
            + " SET state = 'COMPLETED', outcome_kind = ?, outcome = ?,"
            + " expires_at = "
            + n
            + " + ?, lease_until = NULL, owner = NULL, updated_at = "
            + n
            + OWNED,
        toIssued + OWNED + tokenLive,
        "DELETE FROM " + table + OWNED,
        toIssued + evicted + tokenLive,
        "DELETE FROM " + table + evicted,
        "DELETE FROM " + table + " WHERE " + dialect.stepsOf(),
        "UPDATE "
            + table
            + " SET lease_until = "
            + n
            + " + ?,"
            + " expires_at = GREATEST("
            + n
            + " + 2 * ?, COALESCE(token_expires_at, 0)),"
            + " updated_at = "
            + n
            + OWNED,
        "SELECT lease_until FROM " + table + OWNED,
        "DELETE FROM " + table + " WHERE id = ? AND expires_at <= " + n,
        dialect.insertIfAbsent(
            table,
            Statements.RECORD_COLUMNS,
            "(?, ?, ?, 'ISSUED', '', 0, NULL, NULL, "
                + n
                + " + ?, TRUE, "
                + n
                + " + ?, NULL,"
                + " NULL, "
                + n
                + ")"),
        dialect.purge(table),
        "SELECT COUNT(*) FROM (SELECT 1 FROM "
            + table
            + " WHERE "
            + dialect.sameScope()
            + " AND expires_at > "
            + n
            + " AND id <> ? LIMIT ?) capped",
        dialect.insertIfAbsent(
            table,
            Statements.RECORD_COLUMNS,
            "(?, ?, ?, 'COMPLETED', '', "
                + dialect.fenceFloor()
                + ", NULL, NULL, "
                + n
                + " + ?, FALSE, NULL, ?, ?, "
                + n
                + ")"));
  }
}
