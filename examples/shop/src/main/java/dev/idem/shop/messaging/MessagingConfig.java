package dev.idem.shop.messaging;

import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import tools.jackson.databind.json.JsonMapper;

/**
 * The loyalty effect, and on the embedded default the in-process bus with the inbox consumer that
 * applies it (profile services: a listener on RabbitMQ, see {@code
 * dev.idem.shop.services.RabbitConfig}).
 */
@Configuration
class MessagingConfig {

  private static final Logger log = LoggerFactory.getLogger(MessagingConfig.class);

  @Bean
  LoyaltyPoints loyaltyPoints(JsonMapper json) {
    return new LoyaltyPoints(json);
  }

  @Bean
  LoyaltyDeliveries loyaltyDeliveries() {
    return new LoyaltyDeliveries();
  }

  @Bean
  @Profile("!services")
  LoyaltyConsumer loyaltyConsumer(
      DataSource dataSource, LoyaltyPoints points, LoyaltyDeliveries deliveries)
      throws SQLException {
    return new LoyaltyConsumer(dataSource, points, deliveries);
  }

  @Bean
  @Profile("!services")
  InProcessMessageBus messageBus(LoyaltyConsumer loyalty) {
    InProcessMessageBus bus = new InProcessMessageBus();
    bus.subscribe(
        message -> {
          try {
            loyalty.accept(message);
          } catch (UnreadableMessageException e) {
            // No dead-letter queue in process: drop it, or the relay would send it forever.
            log.error("dropped message {}: {}", message.id(), e.getMessage());
          }
        });
    return bus;
  }
}
