package dev.idem.shop;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/** {@link AuditTest} on MariaDB, Redis and RabbitMQ (profiles services and mariadb). */
@ActiveProfiles({"services", "mariadb"})
@TestPropertySource(locations = "classpath:mariadb-it.properties")
class AuditMariaDbIT extends AuditTest {
  static {
    ServicesDatabase.recreateMariaDbOnce();
  }
}
