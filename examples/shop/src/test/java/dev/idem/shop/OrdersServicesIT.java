package dev.idem.shop;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/** {@link OrdersTest} on PostgreSQL, Redis and RabbitMQ (profile services). */
@ActiveProfiles("services")
@TestPropertySource(locations = "classpath:services-it.properties")
class OrdersServicesIT extends OrdersTest {
  static {
    ServicesDatabase.recreateOnce();
  }
}
