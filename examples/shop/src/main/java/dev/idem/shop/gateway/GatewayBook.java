package dev.idem.shop.gateway;

import java.math.BigDecimal;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The fake gateway's own records, one per payment number (its primary key). */
@Repository
class GatewayBook {

  private final JdbcTemplate jdbc;

  GatewayBook(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /** The outcome that holds for a payment number, and whether this call recorded it. */
  record Recorded(GatewayOutcome outcome, boolean fresh) {}

  /** Records the outcome unless the payment number has one already. */
  Recorded record(String paymentNo, String orderNo, BigDecimal amount, GatewayOutcome o) {
    try {
      jdbc.update(
          "INSERT INTO gateway_charges (payment_no, order_no, amount, outcome) VALUES (?, ?, ?, ?)",
          paymentNo,
          orderNo,
          amount,
          o.name());
      return new Recorded(o, true);
    } catch (DuplicateKeyException e) {
      return new Recorded(find(paymentNo).orElseThrow(() -> e), false);
    }
  }

  Optional<GatewayOutcome> find(String paymentNo) {
    return jdbc
        .query(
            "SELECT outcome FROM gateway_charges WHERE payment_no = ?",
            (rs, i) -> GatewayOutcome.valueOf(rs.getString(1)),
            paymentNo)
        .stream()
        .findFirst();
  }
}
