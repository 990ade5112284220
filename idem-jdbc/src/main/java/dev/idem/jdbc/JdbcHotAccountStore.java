package dev.idem.jdbc;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.hot.Deduction;
import dev.idem.core.hot.DeductionResult;
import dev.idem.core.hot.HotAccountStore;
import dev.idem.jdbc.internal.HotAccountSql;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;

/**
 * A {@link HotAccountStore} on the application's own tables: a balance table (the article's {@code
 * account}) and a ledger with one row per applied deduction, whose request id column carries a
 * unique index. A batch is one transaction on its own connection:
 *
 * <ol>
 *   <li>{@code SELECT balance ... FOR UPDATE} locks the account row, so batches of one account from
 *       any number of processes follow one another;
 *   <li>one query finds which request ids the ledger already holds (those are DUPLICATE);
 *   <li>the rest are taken in order while the balance covers them (the others are
 *       INSUFFICIENT_FUNDS) and inserted into the ledger in one JDBC batch, skipping any row the
 *       unique index refuses ({@code ON CONFLICT DO NOTHING} on PostgreSQL, {@code INSERT IGNORE}
 *       on MySQL and MariaDB), so a racing insert of the same id never aborts the transaction;
 *   <li>one {@code UPDATE ... SET balance = balance - :total [, version = version + 1] WHERE id = ?
 *       AND balance >= :total} debits their total.
 * </ol>
 *
 * <p>The unique index, not the lock, is what keeps a request id from being debited twice. Bumping
 * the version column, when one is named, keeps version-checked writers of the same row correct.
 * Table and column names are validated identifiers; values are bound parameters. Thread-safe.
 *
 * @param <K> the account id type, bound with {@code setObject}
 */
public final class JdbcHotAccountStore<K> implements HotAccountStore<K> {

  private final DataSource dataSource;
  private final HotAccountSql sql;

  private JdbcHotAccountStore(Builder b) {
    this.dataSource = b.dataSource;
    this.sql =
        new HotAccountSql(
            b.dialect,
            b.accounts,
            b.id,
            b.balance,
            b.version,
            b.ledger,
            b.ledgerAccount,
            b.ledgerRequest,
            b.ledgerAmount);
  }

  /** A builder for a store on {@code dataSource}, speaking {@code dialect}. */
  public static Builder builder(DataSource dataSource, JdbcDialect dialect) {
    return new Builder(dataSource, dialect);
  }

  /**
   * {@inheritDoc}
   *
   * @throws IdempotencyStoreException when the database fails; the transaction was rolled back
   */
  @Override
  public List<DeductionResult> apply(K account, List<Deduction> batch) {
    Objects.requireNonNull(account, "account");
    if (batch.isEmpty()) {
      throw new IllegalArgumentException("batch must not be empty");
    }
    try (Connection c = dataSource.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        List<DeductionResult> results = applyIn(c, account, batch);
        c.commit();
        return results;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(auto);
      }
    } catch (SQLException e) {
      throw new IdempotencyStoreException("hot account batch failed: " + e.getMessage(), e);
    }
  }

  private List<DeductionResult> applyIn(Connection c, K account, List<Deduction> batch)
      throws SQLException {
    List<DeductionResult> results = new ArrayList<>(batch.size());
    BigDecimal balance = lockBalance(c, account);
    if (balance == null) {
      batch.forEach(d -> results.add(DeductionResult.UNKNOWN_ACCOUNT));
      return results;
    }
    Set<String> seen = requestIds(c, sql.existingRequests(batch.size()), batch, null);
    List<Integer> taken = new ArrayList<>();
    for (Deduction d : batch) {
      if (seen.contains(d.requestId())) {
        results.add(DeductionResult.DUPLICATE);
      } else if (balance.compareTo(d.amount()) < 0) {
        results.add(DeductionResult.INSUFFICIENT_FUNDS);
      } else {
        balance = balance.subtract(d.amount());
        seen.add(d.requestId());
        taken.add(results.size());
        results.add(DeductionResult.APPLIED);
      }
    }
    Set<Integer> inserted = insertLedger(c, account, batch, taken);
    BigDecimal total = BigDecimal.ZERO;
    for (int i : taken) {
      if (inserted.contains(i)) {
        total = total.add(batch.get(i).amount());
      } else {
        results.set(i, DeductionResult.DUPLICATE);
      }
    }
    if (total.signum() > 0) {
      debit(c, account, total);
    }
    return results;
  }

  private BigDecimal lockBalance(Connection c, K account) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.lockBalance)) {
      ps.setObject(1, account);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getBigDecimal(1) : null;
      }
    }
  }

  // The request ids of the batch found by the query; with an account, only that account's.
  private Set<String> requestIds(Connection c, String query, List<Deduction> batch, K account)
      throws SQLException {
    Set<String> found = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(query)) {
      int p = 1;
      for (Deduction d : batch) {
        ps.setString(p++, d.requestId());
      }
      if (account != null) {
        ps.setObject(p, account);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.add(rs.getString(1));
        }
      }
    }
    return found;
  }

  // Inserts the ledger rows of the taken deductions; returns the indexes of those that went in. A
  // row can only be refused when its request id was recorded meanwhile for another account (the
  // row lock keeps this account's batches apart). Where the dialect has no insert that skips it
  // (H2), the duplicate-key error fails the whole batch instead, and a retry answers DUPLICATE.
  private Set<Integer> insertLedger(
      Connection c, K account, List<Deduction> batch, List<Integer> taken) throws SQLException {
    Set<Integer> inserted = new HashSet<>();
    if (taken.isEmpty()) {
      return inserted;
    }
    int[] counts;
    try (PreparedStatement ps = c.prepareStatement(sql.insertLedger)) {
      for (int i : taken) {
        ps.setObject(1, account);
        ps.setString(2, batch.get(i).requestId());
        ps.setBigDecimal(3, batch.get(i).amount());
        ps.addBatch();
      }
      counts = ps.executeBatch();
    }
    boolean unknown = false;
    for (int k = 0; k < counts.length; k++) {
      if (counts[k] == Statement.SUCCESS_NO_INFO) {
        unknown = true;
      } else if (counts[k] > 0) {
        inserted.add(taken.get(k));
      }
    }
    if (unknown) {
      // The driver sent the batch in bulk and reports no counts: ask the ledger instead.
      List<Deduction> takenDeductions = new ArrayList<>();
      taken.forEach(i -> takenDeductions.add(batch.get(i)));
      Set<String> ours =
          requestIds(c, sql.recordedRequests(taken.size()), takenDeductions, account);
      inserted.clear();
      taken.stream().filter(i -> ours.contains(batch.get(i).requestId())).forEach(inserted::add);
    }
    return inserted;
  }

  private void debit(Connection c, K account, BigDecimal total) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.debit)) {
      ps.setBigDecimal(1, total);
      ps.setObject(2, account);
      ps.setBigDecimal(3, total);
      if (ps.executeUpdate() != 1) {
        throw new SQLException("the locked balance row changed under its lock");
      }
    }
  }

  /** Names the tables and columns of a {@link JdbcHotAccountStore}; checked in {@link #build()}. */
  public static final class Builder {
    private final DataSource dataSource;
    private final JdbcDialect dialect;
    private String accounts;
    private String id;
    private String balance;
    private String version;
    private String ledger;
    private String ledgerAccount;
    private String ledgerRequest;
    private String ledgerAmount;

    private Builder(DataSource dataSource, JdbcDialect dialect) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      this.dialect = Objects.requireNonNull(dialect, "dialect");
    }

    /** The balance table, its unique id column and its numeric balance column. */
    public Builder accounts(String table, String idColumn, String balanceColumn) {
      this.accounts = table;
      this.id = idColumn;
      this.balance = balanceColumn;
      return this;
    }

    /** A version column of the balance table to bump with every debit; none by default. */
    public Builder version(String versionColumn) {
      this.version = versionColumn;
      return this;
    }

    /**
     * The ledger table and its columns: the account id, the request id (which must carry a unique
     * index) and the amount.
     */
    public Builder ledger(
        String table, String accountColumn, String requestIdColumn, String amountColumn) {
      this.ledger = table;
      this.ledgerAccount = accountColumn;
      this.ledgerRequest = requestIdColumn;
      this.ledgerAmount = amountColumn;
      return this;
    }

    /**
     * @throws IllegalArgumentException when a name is missing or not an SQL identifier
     */
    public <K> JdbcHotAccountStore<K> build() {
      return new JdbcHotAccountStore<>(this);
    }
  }
}
