package dev.idem.shop.messaging;

import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** The embedded default: the outbox relays to an in-process bus that feeds the loyalty consumer. */
@Configuration
class MessagingConfig {

  @Bean
  LoyaltyConsumer loyaltyConsumer(DataSource dataSource, JsonMapper json) throws SQLException {
    return new LoyaltyConsumer(dataSource, json);
  }

  @Bean
  InProcessMessageBus messageBus(LoyaltyConsumer loyalty) {
    InProcessMessageBus bus = new InProcessMessageBus();
    bus.subscribe(loyalty::accept);
    return bus;
  }
}
