package dev.idem.jdbc;

import dev.idem.core.IdempotencyStore;
import dev.idem.testsupport.EngineContract;
import dev.idem.testsupport.IdempotencyStoreContract;
import dev.idem.testsupport.TokenContract;
import java.util.function.Supplier;
import org.junit.jupiter.api.Nested;

/** The store, token and engine contracts on a real MariaDB server (MySQL dialect). */
class MariaDbJdbcStoreIT {

  private static final JdbcIdempotencyStore STORE =
      Databases.store(Databases.MARIADB_URL, JdbcDialect.mysql(), true);

  @Nested
  class Store extends IdempotencyStoreContract {
    @Override
    protected IdempotencyStore store() {
      return STORE;
    }

    @Override
    protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
      return Databases.MariaDbStore.class;
    }
  }

  @Nested
  class Tokens extends TokenContract {
    @Override
    protected IdempotencyStore store() {
      return STORE;
    }
  }

  @Nested
  class Engine extends EngineContract {
    @Override
    protected IdempotencyStore store() {
      return STORE;
    }
  }
}
