package dev.idem.shop.messaging;

import dev.idem.shop.ShopProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.modulith.events.FailedEventPublications;
import tools.jackson.databind.json.JsonMapper;

/**
 * The loyalty effect, the retry of incomplete event publications, and on the embedded default the
 * listener that applies the points (profile services: a relay to RabbitMQ and a listener on its
 * queue, see {@code dev.idem.shop.services.RabbitConfig}).
 */
@Configuration
class MessagingConfig {

  @Bean
  LoyaltyPoints loyaltyPoints(JsonMapper json) {
    return new LoyaltyPoints(json);
  }

  @Bean
  LoyaltyDeliveries loyaltyDeliveries() {
    return new LoyaltyDeliveries();
  }

  @Bean
  PublicationRetry publicationRetry(FailedEventPublications failed, ShopProperties properties) {
    return new PublicationRetry(failed, properties);
  }

  @Bean
  @Profile("!services")
  LoyaltyListener loyaltyListener(LoyaltyPoints points, JdbcTemplate jdbc) {
    return new LoyaltyListener(points, jdbc);
  }
}
