package dev.idem.jdbc;

import dev.idem.core.store.IdempotencyStore;
import java.util.function.Supplier;

/** Everything of {@link JdbcBackendTests} on an embedded, in-memory H2 database. */
class H2JdbcTest extends JdbcBackendTests {

  @Override
  protected String url() {
    return Databases.H2_URL;
  }

  @Override
  protected JdbcDialect dialect() {
    return JdbcDialect.h2();
  }

  @Override
  protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
    return null;
  }
}
