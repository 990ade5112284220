package dev.idem.spring.web;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import org.springframework.test.context.TestPropertySource;

/** The HTTP conformance suite on PostgreSQL, picked automatically from the DataSource bean. */
@TestPropertySource(properties = "test.postgres=true")
class PostgresHttpConformanceIT extends ServletConformanceTests {

  @Override
  Class<? extends IdempotencyStore> expectedStore() {
    return JdbcIdempotencyStore.class;
  }
}
