package dev.idem.jdbc;

import dev.idem.core.lock.LockProvider;
import dev.idem.testsupport.LockProviderContract;
import org.junit.jupiter.api.Nested;

/** The lock contract and the JDBC lock checks on a real PostgreSQL server. */
class PostgresJdbcLockIT {

  private static final JdbcLockProvider PROVIDER =
      LockFixtures.provider(Databases.POSTGRES_URL, JdbcDialect.postgresql());

  @Nested
  class Locks extends LockProviderContract {
    @Override
    protected LockProvider provider() {
      return PROVIDER;
    }
  }

  @Nested
  class Jdbc extends JdbcLockChecks {
    @Override
    protected String url() {
      return Databases.POSTGRES_URL;
    }

    @Override
    protected JdbcDialect dialect() {
      return JdbcDialect.postgresql();
    }
  }
}
