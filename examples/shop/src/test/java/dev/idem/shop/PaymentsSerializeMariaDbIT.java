package dev.idem.shop;

import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/** {@link PaymentsTest} on MariaDB, Redis and RabbitMQ with {@code shop.wallet.mode=serialize}. */
@ActiveProfiles({"services", "mariadb"})
@TestPropertySource(
    locations = "classpath:mariadb-it.properties",
    properties = "shop.wallet.mode=serialize")
@DirtiesContext
class PaymentsSerializeMariaDbIT extends PaymentsTest {
  static {
    ServicesDatabase.recreateMariaDbOnce();
  }
}
