package dev.idem.shop;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/** {@link MessagingTest} on MariaDB, Redis and RabbitMQ (profiles services and mariadb). */
@ActiveProfiles({"services", "mariadb"})
@TestPropertySource(locations = "classpath:mariadb-it.properties")
class MessagingMariaDbIT extends MessagingTest {
  static {
    ServicesDatabase.recreateMariaDbOnce();
  }
}
