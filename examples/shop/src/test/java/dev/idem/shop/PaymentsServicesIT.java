package dev.idem.shop;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/** {@link PaymentsTest} on PostgreSQL, Redis and RabbitMQ (profile services). */
@ActiveProfiles("services")
@TestPropertySource(locations = "classpath:services-it.properties")
class PaymentsServicesIT extends PaymentsTest {
  static {
    ServicesDatabase.recreateOnce();
  }
}
