package dev.idem.shop;

import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/**
 * {@link PaymentsTest} on PostgreSQL, Redis and RabbitMQ with {@code shop.wallet.mode=coalesce}.
 */
@ActiveProfiles("services")
@TestPropertySource(
    locations = "classpath:services-it.properties",
    properties = "shop.wallet.mode=coalesce")
@DirtiesContext
class PaymentsCoalesceServicesIT extends PaymentsTest {
  static {
    ServicesDatabase.recreateOnce();
  }
}
