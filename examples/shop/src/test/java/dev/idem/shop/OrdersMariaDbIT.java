package dev.idem.shop;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/** {@link OrdersTest} on MariaDB, Redis and RabbitMQ (profiles services and mariadb). */
@ActiveProfiles({"services", "mariadb"})
@TestPropertySource(locations = "classpath:mariadb-it.properties")
class OrdersMariaDbIT extends OrdersTest {
  static {
    ServicesDatabase.recreateMariaDbOnce();
  }
}
