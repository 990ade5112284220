package dev.idem.shop.gateway;

import java.math.BigDecimal;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The fake gateway's own records, one per Idempotency-Key it received (its primary key): a repeat
 * of a key gets the first outcome; another key is another charge, whatever payment it names.
 */
@Repository
class GatewayBook {

  private final JdbcTemplate jdbc;

  GatewayBook(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * The outcome that holds for a key, whether this call recorded it, and whether the key's record
   * is of this same charge (payment, order and amount).
   */
  record Recorded(GatewayOutcome outcome, boolean fresh, boolean sameCharge) {}

  /** Records the outcome under the key unless the key has one already. */
  Recorded record(
      String key, String paymentNo, String orderNo, BigDecimal amount, GatewayOutcome o) {
    try {
      jdbc.update(
          "INSERT INTO gateway_requests (request_key, payment_no, order_no, amount, outcome)"
              + " VALUES (?, ?, ?, ?, ?)",
          key,
          paymentNo,
          orderNo,
          amount,
          o.name());
      return new Recorded(o, true, true);
    } catch (DuplicateKeyException e) {
      return jdbc
          .query(
              "SELECT outcome, payment_no, order_no, amount FROM gateway_requests"
                  + " WHERE request_key = ?",
              (rs, i) ->
                  new Recorded(
                      GatewayOutcome.valueOf(rs.getString(1)),
                      false,
                      rs.getString(2).equals(paymentNo)
                          && rs.getString(3).equals(orderNo)
                          && rs.getBigDecimal(4).compareTo(amount) == 0),
              key)
          .stream()
          .findFirst()
          .orElseThrow(() -> e);
    }
  }

  Optional<GatewayOutcome> byKey(String key) {
    return jdbc
        .query(
            "SELECT outcome FROM gateway_requests WHERE request_key = ?",
            (rs, i) -> GatewayOutcome.valueOf(rs.getString(1)),
            key)
        .stream()
        .findFirst();
  }

  /** The first outcome the gateway recorded for the payment, under whatever key. */
  Optional<GatewayOutcome> ofPayment(String paymentNo) {
    return jdbc
        .query(
            "SELECT outcome FROM gateway_requests WHERE payment_no = ?"
                + " ORDER BY created_at, request_key",
            (rs, i) -> GatewayOutcome.valueOf(rs.getString(1)),
            paymentNo)
        .stream()
        .findFirst();
  }
}
