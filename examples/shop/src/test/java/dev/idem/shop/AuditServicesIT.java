package dev.idem.shop;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/** {@link AuditTest} on PostgreSQL, Redis and RabbitMQ (profile services). */
@ActiveProfiles("services")
@TestPropertySource(locations = "classpath:services-it.properties")
class AuditServicesIT extends AuditTest {
  static {
    ServicesDatabase.recreateOnce();
  }
}
