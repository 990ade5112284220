package dev.idem.shop.payment;

import dev.idem.shop.internal.DatabaseClock;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** payment_records. */
@Repository
public class PaymentRepository {

  private static final String COLUMNS =
      "payment_no, order_no, username, method, amount, status, failure_reason";

  private final JdbcTemplate jdbc;

  PaymentRepository(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Inserts a PENDING payment that holds the order; fails on the unique index when the order
   * already has a payment that is PENDING, PROCESSING or SUCCESS.
   */
  void insertPending(
      String paymentNo, String orderNo, String username, PaymentMethod method, BigDecimal amount) {
    jdbc.update(
        "INSERT INTO payment_records (payment_no, order_no, active_order_no, username, method,"
            + " amount, status) VALUES (?, ?, ?, ?, ?, ?, ?)",
        paymentNo,
        orderNo,
        orderNo,
        username,
        method.name(),
        amount,
        PaymentStatus.PENDING.name());
  }

  public Optional<Payment> find(String paymentNo) {
    return one("SELECT " + COLUMNS + " FROM payment_records WHERE payment_no = ?", paymentNo);
  }

  /** The order's payment that is PENDING, PROCESSING or SUCCESS, if any. */
  Optional<Payment> active(String orderNo) {
    return one("SELECT " + COLUMNS + " FROM payment_records WHERE active_order_no = ?", orderNo);
  }

  /**
   * Notes the database's time as the moment the payment entered PROCESSING; call it in the
   * transaction of the PENDING to PROCESSING transition.
   */
  void startedProcessing(String paymentNo) {
    jdbc.update(
        "UPDATE payment_records SET processing_since = "
            + DatabaseClock.NOW
            + " WHERE payment_no = ? AND status = ?",
        paymentNo,
        PaymentStatus.PROCESSING.name());
  }

  /**
   * The key a card payment left PROCESSING by the version before steps was charged under (its
   * payment number), if it is one; empty for any other payment.
   */
  Optional<String> earlierGatewayKey(String paymentNo) {
    return jdbc
        .queryForList(
            "SELECT gateway_key FROM payment_records WHERE payment_no = ? AND gateway_key IS NOT"
                + " NULL",
            String.class,
            paymentNo)
        .stream()
        .findFirst();
  }

  /** The user's latest {@code limit} payments, newest first. */
  List<Payment> latestOf(String username, int limit) {
    return jdbc.query(
        c -> {
          PreparedStatement statement =
              c.prepareStatement(
                  "SELECT "
                      + COLUMNS
                      + " FROM payment_records WHERE username = ?"
                      + " ORDER BY created_at DESC, payment_no");
          statement.setString(1, username);
          statement.setMaxRows(limit);
          return statement;
        },
        PaymentRepository::map);
  }

  /** Lets the order go after its payment FAILED, so that it can be paid again. */
  void release(String paymentNo, String reason) {
    jdbc.update(
        "UPDATE payment_records SET active_order_no = NULL, failure_reason = ?"
            + " WHERE payment_no = ? AND status = ?",
        reason,
        paymentNo,
        PaymentStatus.FAILED.name());
  }

  private Optional<Payment> one(String sql, String arg) {
    return jdbc.query(sql, PaymentRepository::map, arg).stream().findFirst();
  }

  private static Payment map(ResultSet rs, int row) throws SQLException {
    return new Payment(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        PaymentMethod.valueOf(rs.getString(4)),
        rs.getBigDecimal(5),
        PaymentStatus.valueOf(rs.getString(6)),
        rs.getString(7));
  }
}
