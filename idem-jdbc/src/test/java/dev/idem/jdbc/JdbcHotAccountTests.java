package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.hot.Deduction;
import dev.idem.core.hot.DeductionResult;
import dev.idem.core.hot.HotAccountStore;
import dev.idem.testsupport.HotAccountStoreContract;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The hot-account contract on a balance table and a ledger whose request id is the primary key,
 * plus what only the JDBC store does: the version column and the identifier checks.
 */
abstract class JdbcHotAccountTests extends HotAccountStoreContract {

  protected abstract String url();

  protected abstract JdbcDialect dialect();

  private DataSource ds;
  private JdbcHotAccountStore<String> store;

  @BeforeEach
  void createTables() throws SQLException {
    ds = Databases.pool(url());
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS idem_test_hot_account (id VARCHAR(64) PRIMARY KEY,"
              + " balance DECIMAL(14, 2) NOT NULL, version BIGINT NOT NULL)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS idem_test_hot_ledger (request_id VARCHAR(255) PRIMARY KEY,"
              + " account_id VARCHAR(64) NOT NULL, amount DECIMAL(14, 2) NOT NULL)");
    }
    store =
        JdbcHotAccountStore.builder(ds, dialect())
            .accounts("idem_test_hot_account", "id", "balance")
            .version("version")
            .ledger("idem_test_hot_ledger", "account_id", "request_id", "amount")
            .build();
  }

  @Override
  protected HotAccountStore<String> store() {
    return store;
  }

  @Override
  protected void open(String account, BigDecimal balance) {
    update("INSERT INTO idem_test_hot_account VALUES (?, ?, 0)", account, balance);
  }

  @Override
  protected BigDecimal balance(String account) {
    return query("SELECT balance FROM idem_test_hot_account WHERE id = ?", account);
  }

  @Override
  protected Ledger ledger(String account) {
    BigDecimal rows =
        query("SELECT COUNT(*) FROM idem_test_hot_ledger WHERE account_id = ?", account);
    BigDecimal total =
        query(
            "SELECT COALESCE(SUM(amount), 0) FROM idem_test_hot_ledger WHERE account_id = ?",
            account);
    return new Ledger(rows.intValue(), total);
  }

  @Test
  void aBatchBumpsTheVersionOnceHoweverManyItDebits() {
    String a = "hot-v-" + System.nanoTime();
    open(a, BigDecimal.TEN);
    store.apply(
        a,
        List.of(
            new Deduction(a + "-1", BigDecimal.ONE),
            new Deduction(a + "-2", BigDecimal.ONE),
            new Deduction(a + "-3", BigDecimal.ONE)));

    assertThat(query("SELECT version FROM idem_test_hot_account WHERE id = ?", a))
        .isEqualByComparingTo("1");
    assertThat(balance(a)).isEqualByComparingTo("7");
  }

  @Test
  void aBatchTheBalanceCannotCoverWholeIsTakenInOrder() {
    String a = "hot-o-" + System.nanoTime();
    open(a, new BigDecimal("3.00"));
    store.apply(a, List.of(new Deduction(a + "-0", BigDecimal.ONE)));

    assertThat(
            store.apply(
                a,
                List.of(
                    new Deduction(a + "-0", BigDecimal.ONE),
                    new Deduction(a + "-1", BigDecimal.ONE),
                    new Deduction(a + "-2", BigDecimal.TEN),
                    new Deduction(a + "-3", BigDecimal.ONE),
                    new Deduction(a + "-4", BigDecimal.ONE))))
        .containsExactly(
            DeductionResult.DUPLICATE,
            DeductionResult.APPLIED,
            DeductionResult.INSUFFICIENT_FUNDS,
            DeductionResult.APPLIED,
            DeductionResult.INSUFFICIENT_FUNDS);
    assertThat(balance(a)).isEqualByComparingTo("0");
    assertThat(ledger(a).rows()).isEqualTo(3);
  }

  @Test
  void aBadNameIsRefusedBeforeAnySqlIsBuilt() {
    assertThatThrownBy(
            () ->
                JdbcHotAccountStore.builder(ds, dialect())
                    .accounts("account; DROP TABLE x", "id", "balance")
                    .ledger("ledger", "account_id", "request_id", "amount")
                    .build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JdbcHotAccountStore.builder(ds, dialect()).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aBatchOnAnUnknownAccountChangesNothing() {
    String nobody = "hot-none-" + System.nanoTime();
    assertThat(store.apply(nobody, List.of(new Deduction(nobody, BigDecimal.ONE))))
        .containsExactly(DeductionResult.UNKNOWN_ACCOUNT);
  }

  private void update(String sql, Object... params) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private BigDecimal query(String sql, String account) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, account);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as(sql).isTrue();
        return rs.getBigDecimal(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
