package dev.idem.shop.messaging;

import dev.idem.core.consumer.IdempotentConsumer.Delivery;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcInbox;
import dev.idem.jdbc.JdbcStoreConfig;
import java.math.RoundingMode;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import tools.jackson.databind.json.JsonMapper;

/**
 * Gives one loyalty point per whole unit paid, once per payment event: the inbox row (shop_inbox,
 * keyed by the message id) is written in the same transaction as the points, so a redelivered
 * message finds it and changes nothing.
 */
public class LoyaltyConsumer implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(LoyaltyConsumer.class);

  private final JdbcInbox inbox;
  private final JsonMapper json;

  public LoyaltyConsumer(DataSource dataSource, JsonMapper json) throws SQLException {
    this.inbox =
        new JdbcInbox(
            dataSource,
            JdbcStoreConfig.custom(JdbcDialect.detect(dataSource)).table("shop_inbox"),
            "loyalty");
    this.json = json;
  }

  /**
   * Applies the message once; returns whether this delivery did it. Throws to ask for redelivery.
   */
  public Delivery accept(Message message) {
    if (!PaymentSucceeded.TOPIC.equals(message.topic())) {
      return Delivery.DUPLICATE;
    }
    PaymentSucceeded event = json.readValue(message.payload(), PaymentSucceeded.class);
    long points = Math.max(1, event.amount().setScale(0, RoundingMode.DOWN).longValue());
    try {
      Delivery delivery = receive(message.id(), event, points);
      log.debug("{} {}", message.id(), delivery);
      return delivery;
    } catch (SQLException e) {
      throw new IllegalStateException("could not apply " + message.id(), e);
    }
  }

  private Delivery receive(String id, PaymentSucceeded event, long points) throws SQLException {
    return inbox.receive(
        id,
        c -> {
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
        });
  }

  @Override
  public void destroy() {
    inbox.close();
  }
}
