package dev.idem.shop.messaging;

import dev.idem.core.consumer.IdempotentConsumer.Delivery;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcInbox;
import dev.idem.jdbc.JdbcStoreConfig;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * The loyalty consumer of the embedded default's in-process bus, which has no listener container
 * for the starter's {@code @IdempotentListener}: the inbox row (in idem-jdbc's {@code
 * idem_records}, under the scope {@code consumer:loyalty}, keyed by the message id) is written by
 * {@link JdbcInbox} in the same transaction as the points, so a redelivered message finds it and
 * changes nothing. Over RabbitMQ (profile services) the listener advice does the same.
 */
public class LoyaltyConsumer implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(LoyaltyConsumer.class);

  private final JdbcInbox inbox;
  private final LoyaltyPoints points;

  public LoyaltyConsumer(DataSource dataSource, LoyaltyPoints points, LoyaltyDeliveries deliveries)
      throws SQLException {
    this.inbox =
        new JdbcInbox(
            dataSource,
            JdbcStoreConfig.custom(JdbcDialect.detect(dataSource)),
            LoyaltyPoints.GROUP,
            deliveries);
    this.points = points;
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
    PaymentSucceeded event = points.read(message.id(), message.payload());
    try {
      Delivery delivery = inbox.receive(message.id(), c -> points.add(c, event));
      log.debug("{} {}", message.id(), delivery);
      return delivery;
    } catch (SQLException e) {
      throw new IllegalStateException("could not apply " + message.id(), e);
    }
  }

  @Override
  public void destroy() {
    inbox.close();
  }
}
