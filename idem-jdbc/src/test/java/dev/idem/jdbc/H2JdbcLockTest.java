package dev.idem.jdbc;

import dev.idem.core.lock.LockProvider;
import dev.idem.testsupport.LockProviderContract;
import org.junit.jupiter.api.Nested;

/** The lock contract and the JDBC lock checks on an embedded H2 database. */
class H2JdbcLockTest {

  private static final JdbcLockProvider PROVIDER =
      LockFixtures.provider(Databases.H2_URL, JdbcDialect.h2());

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
      return Databases.H2_URL;
    }

    @Override
    protected JdbcDialect dialect() {
      return JdbcDialect.h2();
    }
  }
}
