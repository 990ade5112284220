package dev.idem.shop;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/** {@link PaymentsTest} on MariaDB, Redis and RabbitMQ (profiles services and mariadb). */
@ActiveProfiles({"services", "mariadb"})
@TestPropertySource(locations = "classpath:mariadb-it.properties")
class PaymentsMariaDbIT extends PaymentsTest {
  static {
    ServicesDatabase.recreateMariaDbOnce();
  }
}
