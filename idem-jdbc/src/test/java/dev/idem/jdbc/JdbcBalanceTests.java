package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.retry.OptimisticRetry;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The article's account deduction, both ways, under contention on one hot row. */
abstract class JdbcBalanceTests {

  protected abstract String url();

  private static final JdbcBalance ACCOUNTS =
      new JdbcBalance("idem_test_account", "id", "balance", "version");

  private DataSource ds;
  private long id;

  @BeforeEach
  void createAccount() throws SQLException {
    ds = Databases.pool(url());
    id = System.nanoTime();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS idem_test_account (id BIGINT PRIMARY KEY,"
              + " balance DECIMAL(12, 2) NOT NULL, version BIGINT NOT NULL)");
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO idem_test_account VALUES (?, 100.00, 0)")) {
        ps.setLong(1, id);
        ps.executeUpdate();
      }
    }
  }

  @Test
  void theConditionalDeductionNeverOverdrawsAndLosesNoRace() throws Exception {
    int ok = race(16, 10, c -> ACCOUNTS.deduct(c, id, BigDecimal.ONE));
    assertThat(ok).isEqualTo(100);
    assertThat(current()).isEqualTo(new JdbcBalance.Versioned(new BigDecimal("0.00"), 100));
  }

  @Test
  void theVersionedDeductionUnderRetryLosesNoDeduction() throws Exception {
    OptimisticRetry retry =
        OptimisticRetry.custom()
            .maxAttempts(200)
            .baseDelay(Duration.ofMillis(1))
            .maxDelay(Duration.ofMillis(20))
            .build();
    int ok =
        race(
            8,
            5,
            c ->
                retry.execute(
                    () -> {
                      try {
                        JdbcBalance.Versioned v = ACCOUNTS.read(c, id).orElseThrow();
                        return ACCOUNTS.deductAtVersion(c, id, BigDecimal.ONE, v.version())
                            ? Optional.of(true)
                            : Optional.<Boolean>empty();
                      } catch (SQLException e) {
                        throw new IllegalStateException(e);
                      }
                    }));
    assertThat(ok).isEqualTo(40);
    assertThat(current()).isEqualTo(new JdbcBalance.Versioned(new BigDecimal("60.00"), 40));
  }

  @Test
  void aStaleVersionOrTooLittleIsRefused() throws Exception {
    try (Connection c = ds.getConnection()) {
      assertThat(ACCOUNTS.deductAtVersion(c, id, BigDecimal.ONE, 7)).isFalse();
      assertThat(ACCOUNTS.deduct(c, id, new BigDecimal("100.01"))).isFalse();
      assertThat(ACCOUNTS.deduct(c, -1L, BigDecimal.ONE)).isFalse();
      assertThatThrownBy(() -> ACCOUNTS.deduct(c, id, BigDecimal.ZERO))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(current()).isEqualTo(new JdbcBalance.Versioned(new BigDecimal("100.00"), 0));
  }

  interface Deduction {
    boolean run(Connection c) throws Exception;
  }

  private int race(int threads, int each, Deduction deduction) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger ok = new AtomicInteger();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        running.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < each; i++) {
                    try (Connection c = ds.getConnection()) {
                      if (deduction.run(c)) {
                        ok.incrementAndGet();
                      }
                    }
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : running) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    return ok.get();
  }

  private JdbcBalance.Versioned current() throws SQLException {
    try (Connection c = ds.getConnection()) {
      return ACCOUNTS.read(c, id).orElseThrow();
    }
  }
}
