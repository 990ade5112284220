package dev.idem.spring.web;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import org.springframework.test.context.TestPropertySource;

/** The WebFlux conformance suite on PostgreSQL, picked automatically from the DataSource bean. */
@TestPropertySource(properties = "test.postgres=true")
class PostgresWebFluxConformanceIT extends WebFluxConformanceTests {

  @Override
  Class<? extends IdempotencyStore> expectedStore() {
    return JdbcIdempotencyStore.class;
  }
}
