package dev.idem.jdbc.internal;

import java.util.Collections;
import org.jspecify.annotations.Nullable;

/**
 * The statements of a hot-account store, built once from validated names: debit a total, lock the
 * balance row, find request ids already in the ledger, insert ledger rows (skipping duplicates
 * where the dialect can), give back what duplicates took.
 */
public final class HotAccountSql {

  /** {@code SELECT balance ... FOR UPDATE}; parameter: account id. */
  public final String lockBalance;

  /** Parameters: account id, request id, amount. */
  public final String insertLedger;

  /** True when {@link #insertLedger} skips a duplicate request id instead of failing. */
  public final boolean skipsDuplicates;

  /** Parameters: total, account id, total. One row updated when the balance covers the total. */
  public final String debit;

  /** Gives back what a debit took for rows the ledger refused. Parameters: amount, account id. */
  public final String credit;

  private final String ledger;
  private final String ledgerAccount;
  private final String ledgerRequest;

  /**
   * @param version the version column to bump with every debit, or null for none
   */
  public HotAccountSql(
      Statements dialect,
      String accounts,
      String id,
      String balance,
      @Nullable String version,
      String ledger,
      String ledgerAccount,
      String ledgerRequest,
      String ledgerAmount) {
    String t = SqlIdentifiers.table(accounts);
    String idc = SqlIdentifiers.column(id);
    String bal = SqlIdentifiers.column(balance);
    this.ledger = SqlIdentifiers.table(ledger);
    this.ledgerAccount = SqlIdentifiers.column(ledgerAccount);
    this.ledgerRequest = SqlIdentifiers.column(ledgerRequest);
    String amount = SqlIdentifiers.column(ledgerAmount);
    this.lockBalance = "SELECT " + bal + " FROM " + t + " WHERE " + idc + " = ? FOR UPDATE";
    String columns = "(" + this.ledgerAccount + ", " + this.ledgerRequest + ", " + amount + ")";
    String ignoring = dialect.insertIgnoringDuplicates(this.ledger, columns, "(?, ?, ?)");
    this.skipsDuplicates = ignoring != null;
    this.insertLedger =
        ignoring != null
            ? ignoring
            : "INSERT INTO " + this.ledger + " " + columns + " VALUES (?, ?, ?)";
    String bump = version == null ? "" : ", " + v(version) + " = " + v(version) + " + 1";
    this.credit = "UPDATE " + t + " SET " + bal + " = " + bal + " + ? WHERE " + idc + " = ?";
    this.debit =
        "UPDATE "
            + t
            + " SET "
            + bal
            + " = "
            + bal
            + " - ?"
            + bump
            + " WHERE "
            + idc
            + " = ? AND "
            + bal
            + " >= ?";
  }

  private static String v(String version) {
    return SqlIdentifiers.column(version);
  }

  /** The request ids among {@code n} parameters that the ledger holds, for any account. */
  public String existingRequests(int n) {
    return "SELECT "
        + ledgerRequest
        + " FROM "
        + ledger
        + " WHERE "
        + ledgerRequest
        + " IN ("
        + String.join(", ", Collections.nCopies(n, "?"))
        + ")";
  }

  /** The request ids among {@code n} parameters recorded for the account (first parameter). */
  public String recordedRequests(int n) {
    return existingRequests(n) + " AND " + ledgerAccount + " = ?";
  }
}
