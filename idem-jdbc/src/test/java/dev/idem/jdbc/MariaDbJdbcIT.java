package dev.idem.jdbc;

import dev.idem.core.store.IdempotencyStore;
import java.util.function.Supplier;

/**
 * Everything of {@link JdbcBackendTests} on a real MariaDB server, MariaDB dialect, with claims
 * under READ COMMITTED ({@link MySqlDialectOnMariaDbIT} keeps the default, REPEATABLE READ).
 */
class MariaDbJdbcIT extends JdbcBackendTests {

  @Override
  protected boolean readCommittedClaims() {
    return true;
  }

  @Override
  protected String url() {
    return Databases.MARIADB_URL;
  }

  @Override
  protected JdbcDialect dialect() {
    return JdbcDialect.mariadb();
  }

  @Override
  protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
    return Databases.MariaDbStore.class;
  }

  @Override
  protected boolean completerSuite() {
    return false;
  }
}
