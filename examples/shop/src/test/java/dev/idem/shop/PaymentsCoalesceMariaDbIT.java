package dev.idem.shop;

import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/** {@link PaymentsTest} on MariaDB, Redis and RabbitMQ with {@code shop.wallet.mode=coalesce}. */
@ActiveProfiles({"services", "mariadb"})
@TestPropertySource(
    locations = "classpath:mariadb-it.properties",
    properties = "shop.wallet.mode=coalesce")
@DirtiesContext
class PaymentsCoalesceMariaDbIT extends PaymentsTest {
  static {
    ServicesDatabase.recreateMariaDbOnce();
  }
}
