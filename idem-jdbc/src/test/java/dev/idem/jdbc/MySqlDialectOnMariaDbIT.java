package dev.idem.jdbc;

import dev.idem.core.store.IdempotencyStore;
import java.util.function.Supplier;

/**
 * Everything of {@link JdbcBackendTests} with the MySQL dialect (no {@code RETURNING}, claims read
 * back) on the MariaDB server, which speaks MySQL's syntax: the closest to MySQL 8 this machine
 * has.
 */
class MySqlDialectOnMariaDbIT extends JdbcBackendTests {

  @Override
  protected String url() {
    return Databases.MARIADB_URL;
  }

  @Override
  protected JdbcDialect dialect() {
    return JdbcDialect.mysql();
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
