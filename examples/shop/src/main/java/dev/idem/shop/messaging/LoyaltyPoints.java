package dev.idem.shop.messaging;

import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The loyalty consumer's effect, whatever delivers the message: one point per whole unit paid,
 * written on the connection of the transaction that also writes the message's dedup record. {@code
 * loyalty_points} deliberately has no unique key per order: the dedup record is what keeps points
 * to once.
 */
public class LoyaltyPoints {

  /** The RabbitMQ consumer group: the scope {@code consumer:loyalty} of its dedup records. */
  public static final String GROUP = "loyalty";

  /** The operation of the event listener of the embedded default: the scope of its records. */
  public static final String LISTENER = "loyalty-points";

  private final JsonMapper json;

  public LoyaltyPoints(JsonMapper json) {
    this.json = json;
  }

  /**
   * The event a message carries.
   *
   * @throws UnreadableMessageException when the message has no id or its payload is not the event:
   *     do not redeliver it
   */
  public PaymentSucceeded read(String id, String payload) {
    if (id == null || id.isBlank()) {
      throw new UnreadableMessageException("a message without an id cannot be deduplicated", null);
    }
    PaymentSucceeded event;
    try {
      event = json.readValue(payload, PaymentSucceeded.class);
    } catch (JacksonException e) {
      throw new UnreadableMessageException("message " + id + " is not an event", e);
    }
    if (event == null
        || event.paymentNo() == null
        || event.orderNo() == null
        || event.username() == null
        || event.amount() == null) {
      throw new UnreadableMessageException("message " + id + " lacks fields", null);
    }
    return event;
  }

  /** Writes the event's points on {@code c}, in its transaction. */
  public void add(Connection c, PaymentSucceeded event) throws SQLException {
    long points = Math.max(1, event.amount().setScale(0, RoundingMode.DOWN).longValue());
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO loyalty_points (entry_id, username, order_no, points)"
                + " VALUES (?, ?, ?, ?)")) {
      ps.setString(1, UUID.randomUUID().toString());
      ps.setString(2, event.username());
      ps.setString(3, event.orderNo());
      ps.setLong(4, points);
      ps.executeUpdate();
    }
  }
}
