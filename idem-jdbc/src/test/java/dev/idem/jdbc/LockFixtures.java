package dev.idem.jdbc;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.testsupport.StateStoreContract.PaymentStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/** Lock providers and a payments table for the state store, on the test databases. */
final class LockFixtures {

  static final String PAYMENTS = "idem_test_payments";

  private LockFixtures() {}

  /** A provider on {@code url} with the default table, created if missing. */
  static JdbcLockProvider provider(String url, JdbcDialect dialect) {
    return provider(url, dialect, JdbcLockConfig.DEFAULT_FENCE_RETENTION);
  }

  /** A provider on {@code url} whose rows may be purged {@code retention} after they go idle. */
  static JdbcLockProvider provider(String url, JdbcDialect dialect, Duration retention) {
    DataSource ds = Databases.pool(url);
    JdbcLockConfig config = JdbcLockConfig.custom(dialect).fenceRetention(retention).build();
    JdbcSchema.createIfMissing(ds, config);
    return new JdbcLockProvider(ds, config);
  }

  /** A state store on the payments table of {@code url}, created if missing. */
  static JdbcStateStore<PaymentStatus> payments(String url) {
    execute(
        url,
        "CREATE TABLE IF NOT EXISTS "
            + PAYMENTS
            + " (payment_no VARCHAR(64) NOT NULL PRIMARY KEY, status VARCHAR(16) NOT NULL)");
    return JdbcStateStore.builder(Databases.pool(url), PaymentStatus.class)
        .table(PAYMENTS)
        .idColumn("payment_no")
        .build();
  }

  /** Inserts payment {@code id} in {@code status}. */
  static void insertPayment(String url, String id, PaymentStatus status) {
    try (Connection c = Databases.pool(url).getConnection();
        PreparedStatement ps =
            c.prepareStatement("INSERT INTO " + PAYMENTS + " (payment_no, status) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setString(2, status.name());
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IdempotencyStoreException("could not insert payment " + id, e);
    }
  }

  private static void execute(String url, String sql) {
    try (Connection c = Databases.pool(url).getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IdempotencyStoreException("could not run " + sql, e);
    }
  }
}
