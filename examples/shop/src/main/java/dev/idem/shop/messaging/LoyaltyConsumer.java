package dev.idem.shop.messaging;

import dev.idem.core.consumer.IdempotentConsumer.Delivery;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcInbox;
import dev.idem.jdbc.JdbcStoreConfig;
import java.math.RoundingMode;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Gives one loyalty point per whole unit paid, once per payment event: the inbox row (in
 * idem-jdbc's {@code idem_records}, from its Flyway migration, under the scope of the consumer
 * group {@code loyalty} and keyed by the message id) is written in the same transaction as the
 * points, so a redelivered message finds it and changes nothing.
 */
public class LoyaltyConsumer implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(LoyaltyConsumer.class);

  private final JdbcInbox inbox;
  private final JsonMapper json;
  private final List<BiConsumer<String, Delivery>> observers = new CopyOnWriteArrayList<>();

  public LoyaltyConsumer(DataSource dataSource, JsonMapper json) throws SQLException {
    this.inbox =
        new JdbcInbox(
            dataSource, JdbcStoreConfig.custom(JdbcDialect.detect(dataSource)), "loyalty");
    this.json = json;
  }

  /**
   * Applies the message once; returns whether this delivery did it (messages of other topics are
   * ignored and answered DUPLICATE).
   *
   * @throws UnreadableMessageException when the message has no id or its payload is not the event:
   *     do not redeliver it
   * @throws IllegalStateException when the database failed: redeliver it
   */
  public Delivery accept(Message message) {
    if (!PaymentSucceeded.TOPIC.equals(message.topic())) {
      return Delivery.DUPLICATE;
    }
    if (message.id() == null || message.id().isBlank()) {
      throw new UnreadableMessageException("a message without an id cannot be deduplicated", null);
    }
    PaymentSucceeded event = read(message);
    long points = Math.max(1, event.amount().setScale(0, RoundingMode.DOWN).longValue());
    try {
      Delivery delivery = receive(message.id(), event, points);
      log.debug("{} {}", message.id(), delivery);
      observers.forEach(o -> o.accept(message.id(), delivery));
      return delivery;
    } catch (SQLException e) {
      throw new IllegalStateException("could not apply " + message.id(), e);
    }
  }

  /**
   * Calls {@code observer} with the message id and the outcome of every delivery applied or found
   * to be a duplicate from now on; for tests and demonstrations.
   */
  public void observe(BiConsumer<String, Delivery> observer) {
    observers.add(observer);
  }

  private PaymentSucceeded read(Message message) {
    PaymentSucceeded event;
    try {
      event = json.readValue(message.payload(), PaymentSucceeded.class);
    } catch (JacksonException e) {
      throw new UnreadableMessageException("message " + message.id() + " is not an event", e);
    }
    if (event == null
        || event.paymentNo() == null
        || event.orderNo() == null
        || event.username() == null
        || event.amount() == null) {
      throw new UnreadableMessageException("message " + message.id() + " lacks fields", null);
    }
    return event;
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
