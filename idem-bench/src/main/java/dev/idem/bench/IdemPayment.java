package dev.idem.bench;

import dev.idem.bench.article.PaymentResult;
import dev.idem.bench.article.ThirdPartyPay;
import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.state.StateMachine;
import dev.idem.core.state.StateTransitions;
import dev.idem.jdbc.JdbcStateStore;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The article's pay flow as the shop does it with Idem ({@code examples/shop}'s {@code
 * PaymentService}), on PostgreSQL and Redis: the call runs under {@link Idempotency#call} keyed by
 * the order number on a Redis store, and inside it every step is safe on its own, whoever holds the
 * key. The order's open payment is found or created through a unique index on {@code
 * active_order_no}, moved PENDING to PROCESSING by a guarded write whose winner alone calls the
 * provider, and settled by a second guarded write. A repeat in flight is refused as in progress
 * (the shop's 409); a repeat after completion gets the first payment number back.
 */
final class IdemPayment {

  /** The payment's states and the moves allowed between them. */
  enum Status {
    PENDING,
    PROCESSING,
    SUCCESS,
    FAILED
  }

  private static final StateMachine<Status> MACHINE =
      StateMachine.builder(Status.class)
          .allow(Status.PENDING, Status.PROCESSING)
          .allow(Status.PROCESSING, Status.SUCCESS, Status.FAILED)
          .build();

  private final Idempotency engine;
  private final IdempotencyConfig config;
  private final DataSource dataSource;
  private final ThirdPartyPay thirdPartyPay;
  private final String table;
  private final StateTransitions<String, Status> transitions;

  IdemPayment(
      Idempotency engine,
      IdempotencyConfig config,
      DataSource dataSource,
      ThirdPartyPay thirdPartyPay,
      String table) {
    this.engine = engine;
    this.config = config;
    this.dataSource = dataSource;
    this.thirdPartyPay = thirdPartyPay;
    this.table = table;
    this.transitions =
        MACHINE.on(
            JdbcStateStore.builder(dataSource, Status.class)
                .table(table)
                .idColumn("payment_no")
                .statusColumn("status")
                .build());
  }

  /** Creates the payments table (PostgreSQL), if missing. */
  static void createTable(DataSource dataSource, String table) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + table
              + " (payment_no VARCHAR(64) PRIMARY KEY, order_no VARCHAR(64) NOT NULL,"
              + " active_order_no VARCHAR(64) UNIQUE, amount DECIMAL(10, 2) NOT NULL,"
              + " status VARCHAR(20) NOT NULL)");
      s.execute("CREATE INDEX IF NOT EXISTS " + table + "_order_no ON " + table + " (order_no)");
    }
  }

  /** Pays {@code orderNo} once, however often and however concurrently it is called. */
  PaymentResult pay(String orderNo, BigDecimal amount) throws SQLException {
    try {
      Executed<String> paid =
          engine
              .call(IdempotencyKey.of("pay", orderNo), Fingerprint.NONE)
              .config(config)
              .runWithStatus(ctx -> payOnce(orderNo, amount));
      return new PaymentResult(paid.value(), "SUCCESS", paid.replayed() ? "replayed" : "paid");
    } catch (RequestInProgressException | StillProcessing e) {
      return PaymentResult.processing("payment in progress");
    }
  }

  /**
   * The order's open payment is in the provider's hands under another call (one whose lease ran
   * out, say): not a success to store, but a retryable answer that frees the key.
   */
  private static final class StillProcessing extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StillProcessing(String paymentNo) {
      super("payment " + paymentNo + " is being processed", null, false, false);
    }
  }

  private String payOnce(String orderNo, BigDecimal amount) throws SQLException {
    OpenPayment open = openPayment(orderNo, amount);
    if (open.status() == Status.FAILED) {
      // Declined earlier and not released (a crash between the two writes): release it and open
      // a new one, as a declined payment leaves the order payable.
      release(open.paymentNo());
      open = openPayment(orderNo, amount);
    }
    if (open.status() == Status.SUCCESS) {
      return open.paymentNo();
    }
    if (!transitions.transition(open.paymentNo(), Status.PENDING, Status.PROCESSING).changed()) {
      throw new StillProcessing(open.paymentNo());
    }
    boolean approved = thirdPartyPay.pay(open.paymentNo(), amount);
    transitions.transition(
        open.paymentNo(), Status.PROCESSING, approved ? Status.SUCCESS : Status.FAILED);
    if (!approved) {
      release(open.paymentNo());
      throw new IllegalStateException("declined: " + open.paymentNo());
    }
    return open.paymentNo();
  }

  private record OpenPayment(String paymentNo, Status status) {}

  // Finds the order's open payment, creating it PENDING if there is none.
  private OpenPayment openPayment(String orderNo, BigDecimal amount) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO "
                  + table
                  + " (payment_no, order_no, active_order_no, amount, status)"
                  + " VALUES (?, ?, ?, ?, 'PENDING') ON CONFLICT (active_order_no) DO NOTHING")) {
        ps.setString(1, "P" + UUID.randomUUID().toString().replace("-", ""));
        ps.setString(2, orderNo);
        ps.setString(3, orderNo);
        ps.setBigDecimal(4, amount);
        ps.executeUpdate();
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT payment_no, status FROM " + table + " WHERE active_order_no = ?")) {
        ps.setString(1, orderNo);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            throw new SQLException("order " + orderNo + " has no open payment");
          }
          return new OpenPayment(rs.getString(1), Status.valueOf(rs.getString(2)));
        }
      }
    }
  }

  // A declined payment no longer holds its order open; guarded by its status.
  private void release(String paymentNo) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE "
                    + table
                    + " SET active_order_no = NULL WHERE payment_no = ? AND status = 'FAILED'")) {
      ps.setString(1, paymentNo);
      ps.executeUpdate();
    }
  }
}
