package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.hot.DeductionResult;
import dev.idem.core.hot.HotAccountConfig;
import dev.idem.core.hot.HotAccountExecutor;
import dev.idem.jdbc.JdbcBalance;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcHotAccountStore;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One hot account on PostgreSQL and the three ways of deducting from it that {@link
 * HotAccountBench} compares. Every deduction takes 1.00 from an account that never runs dry, so a
 * refusal is never for lack of funds.
 */
final class HotAccountScenarios implements AutoCloseable {

  /** One deduction; true when applied, false when refused. */
  @FunctionalInterface
  interface Deduct {
    boolean run() throws Exception;
  }

  static final String ARTICLE = "article: version check, 3 tries";
  static final String CONDITIONAL = "JdbcBalance.deduct: one conditional UPDATE";
  static final String COALESCING = "HotAccountExecutor (coalescing) + JdbcHotAccountStore";

  private static final long ACCOUNT = 1L;
  private static final BigDecimal AMOUNT = new BigDecimal("1.00");
  private static final int ARTICLE_TRIES = 3;

  /** The starting balance, more than any run takes. */
  static final BigDecimal START = new BigDecimal("1000000000.00");

  private final HikariDataSource pool;
  private final String accounts;
  private final String ledger;
  private final JdbcBalance balance;
  private final HotAccountExecutor<Long> executor;
  private final AtomicLong requests = new AtomicLong();
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  /** On the tables {@code bench_hot_account} and {@code bench_hot_ledger}. */
  HotAccountScenarios(String url, int connections) {
    this(url, connections, "bench_hot_account", "bench_hot_ledger");
  }

  /** On tables of the caller's naming, so that two benchmarks never share them. */
  HotAccountScenarios(String url, int connections, String accounts, String ledger) {
    this.accounts = accounts;
    this.ledger = ledger;
    this.balance = new JdbcBalance(accounts, "id", "balance", "version");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(connections);
    config.setMinimumIdle(connections);
    config.setPoolName("idem-bench-hot");
    this.pool = new HikariDataSource(config);
    this.executor =
        new HotAccountExecutor<>(
            JdbcHotAccountStore.builder(pool, JdbcDialect.postgresql())
                .accounts(accounts, "id", "balance")
                .version("version")
                .ledger(ledger, "account_id", "request_id", "amount")
                .build(),
            HotAccountConfig.ofDefaults());
  }

  /** Creates the tables if missing, and sets the account to a balance no run can use up. */
  void reset() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + accounts
              + " (id BIGINT PRIMARY KEY,"
              + " balance DECIMAL(16, 2) NOT NULL, version BIGINT NOT NULL)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + ledger
              + " (request_id VARCHAR(64) PRIMARY KEY,"
              + " account_id BIGINT NOT NULL, amount DECIMAL(16, 2) NOT NULL)");
      s.execute("TRUNCATE " + ledger);
      s.execute("DELETE FROM " + accounts);
      s.execute("INSERT INTO " + accounts + " VALUES (" + ACCOUNT + ", " + START + ", 0)");
    }
  }

  /** How much has left the account since {@link #reset()}. */
  BigDecimal deducted() throws SQLException {
    try (Connection c = pool.getConnection()) {
      return START.subtract(balance.read(c, ACCOUNT).orElseThrow().amount());
    }
  }

  /** The amount each deduction takes. */
  static BigDecimal amount() {
    return AMOUNT;
  }

  /** Drops both tables. */
  void drop() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + accounts + ", " + ledger);
    }
  }

  /** The article's {@code AccountService.deduct}: read, check, versioned update, 3 tries. */
  boolean article() throws SQLException {
    try (Connection c = pool.getConnection()) {
      for (int attempt = 0; attempt < ARTICLE_TRIES; attempt++) {
        JdbcBalance.Versioned row = balance.read(c, ACCOUNT).orElseThrow();
        if (row.amount().compareTo(AMOUNT) < 0) {
          return false;
        }
        if (balance.deductAtVersion(c, ACCOUNT, AMOUNT, row.version())) {
          return true;
        }
      }
      return false;
    }
  }

  /** One {@code UPDATE ... WHERE balance >= ?} in auto-commit. */
  boolean conditional() throws SQLException {
    try (Connection c = pool.getConnection()) {
      return balance.deduct(c, ACCOUNT, AMOUNT);
    }
  }

  /** A deduction with a new request id through the coalescing executor. */
  boolean coalescing() {
    String requestId = run + "-" + requests.incrementAndGet();
    return executor.deduct(ACCOUNT, requestId, AMOUNT) == DeductionResult.APPLIED;
  }

  /** What a scenario's name runs. */
  Deduct scenario(String name) {
    return switch (name) {
      case ARTICLE -> this::article;
      case CONDITIONAL -> this::conditional;
      case COALESCING -> this::coalescing;
      default -> throw new IllegalArgumentException("no scenario " + name);
    };
  }

  @Override
  public void close() {
    pool.close();
  }
}
