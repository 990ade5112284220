package dev.idem.jdbc;

import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.IdempotencyStore;
import java.util.function.Supplier;

/** Everything of {@link JdbcBackendTests} on a real PostgreSQL server. */
class PostgresJdbcIT extends JdbcBackendTests {

  @Override
  protected String url() {
    return Databases.POSTGRES_URL;
  }

  @Override
  protected JdbcDialect dialect() {
    return JdbcDialect.postgresql();
  }

  @Override
  protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
    return Databases.PostgresStore.class;
  }

  @Override
  protected Class<? extends Supplier<ResumeLog>> crashLogFactory() {
    return Databases.PostgresResumeLog.class;
  }
}
