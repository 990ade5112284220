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
import org.jspecify.annotations.Nullable;

/**
 * A {@link HotAccountStore} on the application's own tables: a balance table (the article's {@code
 * account}) and a ledger with one row per applied deduction, whose request id column carries a
 * unique index. A batch is one transaction on its own connection. Where the dialect has an insert
 * that skips duplicates ({@code ON CONFLICT DO NOTHING} on PostgreSQL, {@code INSERT IGNORE} on
 * MySQL and MariaDB), the common case takes two statements:
 *
 * <ol>
 *   <li>{@code UPDATE ... SET balance = balance - :total [, version = version + 1] WHERE id = ? AND
 *       balance >= :total} debits the whole batch and locks the row, so batches of one account from
 *       any number of processes follow one another;
 *   <li>the ledger rows go in as one JDBC batch; a row the unique index skips is a repeat
 *       (DUPLICATE), and only then a third statement gives its amount back.
 * </ol>
 *
 * <p>When the balance does not cover the whole batch (and always on H2, and with a driver that
 * reports no per-row counts for a batch, as MariaDB Connector/J's bulk protocol does), the batch is
 * taken one by one instead: {@code SELECT balance ... FOR UPDATE}, one query for the request ids
 * the ledger already holds (DUPLICATE), the rest in order while the balance covers them (the others
 * INSUFFICIENT_FUNDS), their ledger rows, and one debit of their total.
 *
 * <p>The unique index, not the lock, is what keeps a request id from being debited twice. Bumping
 * the version column, when one is named, keeps version-checked writers of the same row correct; a
 * batch of nothing but repeats may bump it without changing the balance. Table and column names are
 * validated identifiers; values are bound parameters. Thread-safe.
 *
 * @param <K> the account id type, bound with {@code setObject}
 */
public final class JdbcHotAccountStore<K> implements HotAccountStore<K> {

  private final DataSource dataSource;
  private final HotAccountSql sql;
  // Set once the driver is seen to report no per-row counts for a batch insert.
  private volatile boolean countsUnknown;

  private JdbcHotAccountStore(Builder b) {
    this.dataSource = b.dataSource;
    this.sql =
        new HotAccountSql(
            b.dialect.sql(),
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
    if (sql.skipsDuplicates && !countsUnknown) {
      List<DeductionResult> results = whenAllFit(c, account, batch);
      if (results != null) {
        return results;
      }
    }
    return oneByOne(c, account, batch);
  }

  // The common case in two statements and a commit: the balance covers the whole batch, so one
  // conditional UPDATE debits it all (and locks the row), the ledger insert finds the repeats, and
  // only when there were some is their amount given back. Null when the balance did not cover the
  // batch (or there is no such account), or when the driver reports no counts: nothing was
  // written, and the batch is taken one by one.
  private @Nullable List<DeductionResult> whenAllFit(Connection c, K account, List<Deduction> batch)
      throws SQLException {
    List<DeductionResult> results = new ArrayList<>(batch.size());
    List<Integer> firsts = new ArrayList<>();
    Set<String> inBatch = new HashSet<>();
    BigDecimal total = BigDecimal.ZERO;
    for (Deduction d : batch) {
      if (inBatch.add(d.requestId())) {
        firsts.add(results.size());
        total = total.add(d.amount());
        results.add(DeductionResult.APPLIED);
      } else {
        results.add(DeductionResult.DUPLICATE);
      }
    }
    if (!debit(c, account, total)) {
      return null;
    }
    Set<Integer> inserted = insertLedger(c, account, batch, firsts);
    if (inserted == null) {
      // Without counts a repeat cannot be told from a new row here: undo, and let this store take
      // every batch one by one from now on.
      c.rollback();
      countsUnknown = true;
      return null;
    }
    BigDecimal refund = BigDecimal.ZERO;
    for (int i : firsts) {
      if (!inserted.contains(i)) {
        results.set(i, DeductionResult.DUPLICATE);
        refund = refund.add(batch.get(i).amount());
      }
    }
    if (refund.signum() > 0) {
      credit(c, account, refund);
    }
    return results;
  }

  // Under the row lock: known request ids are repeats, the others go in order while the balance
  // covers them.
  private List<DeductionResult> oneByOne(Connection c, K account, List<Deduction> batch)
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
    Set<Integer> inserted = insertedByUs(c, account, batch, taken);
    BigDecimal total = BigDecimal.ZERO;
    for (int i : taken) {
      if (inserted.contains(i)) {
        total = total.add(batch.get(i).amount());
      } else {
        results.set(i, DeductionResult.DUPLICATE);
      }
    }
    if (total.signum() > 0 && !debit(c, account, total)) {
      throw new SQLException("the locked balance row changed under its lock");
    }
    return results;
  }

  private @Nullable BigDecimal lockBalance(Connection c, K account) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.lockBalance)) {
      ps.setObject(1, account);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getBigDecimal(1) : null;
      }
    }
  }

  // The request ids of the batch found by the query; with an account, only that account's.
  private Set<String> requestIds(
      Connection c, String query, List<Deduction> batch, @Nullable K account) throws SQLException {
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

  // Inserts the ledger rows of the taken deductions; returns the indexes of those that went in, or
  // null when the driver sent the batch in bulk and reports no counts (MariaDB Connector/J).
  // Where the dialect has no insert that skips a duplicate (H2), the duplicate-key error of a
  // request id recorded meanwhile for another account fails the batch; a retry answers DUPLICATE.
  private @Nullable Set<Integer> insertLedger(
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
    for (int k = 0; k < counts.length; k++) {
      if (counts[k] == Statement.SUCCESS_NO_INFO) {
        return null;
      }
      if (counts[k] > 0) {
        inserted.add(taken.get(k));
      }
    }
    return inserted;
  }

  // After the one-by-one path's check under the row lock, a taken request id that is in the ledger
  // with this account can only have been inserted by this transaction.
  private Set<Integer> insertedByUs(
      Connection c, K account, List<Deduction> batch, List<Integer> taken) throws SQLException {
    Set<Integer> inserted = insertLedger(c, account, batch, taken);
    if (inserted != null) {
      return inserted;
    }
    List<Deduction> takenDeductions = new ArrayList<>();
    taken.forEach(i -> takenDeductions.add(batch.get(i)));
    Set<String> ours = requestIds(c, sql.recordedRequests(taken.size()), takenDeductions, account);
    Set<Integer> found = new HashSet<>();
    taken.stream().filter(i -> ours.contains(batch.get(i).requestId())).forEach(found::add);
    return found;
  }

  private boolean debit(Connection c, K account, BigDecimal total) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.debit)) {
      ps.setBigDecimal(1, total);
      ps.setObject(2, account);
      ps.setBigDecimal(3, total);
      return ps.executeUpdate() == 1;
    }
  }

  private void credit(Connection c, K account, BigDecimal amount) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.credit)) {
      ps.setBigDecimal(1, amount);
      ps.setObject(2, account);
      ps.executeUpdate();
    }
  }

  /** Names the tables and columns of a {@link JdbcHotAccountStore}; checked in {@link #build()}. */
  public static final class Builder {
    private final DataSource dataSource;
    private final JdbcDialect dialect;
    private String accounts;
    private String id;
    private String balance;
    private @Nullable String version;
    private String ledger;
    private String ledgerAccount;
    private String ledgerRequest;
    private String ledgerAmount;

    @SuppressWarnings("NullAway.Init") // the names are checked when the store is built
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
    public Builder version(@Nullable String versionColumn) {
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
