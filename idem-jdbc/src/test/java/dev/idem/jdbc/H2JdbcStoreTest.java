package dev.idem.jdbc;

import dev.idem.core.IdempotencyStore;
import dev.idem.testsupport.EngineContract;
import dev.idem.testsupport.IdempotencyStoreContract;
import dev.idem.testsupport.TokenContract;
import org.junit.jupiter.api.Nested;

/** The store, token and engine contracts on an embedded H2 database. */
class H2JdbcStoreTest {

  private static final JdbcIdempotencyStore STORE =
      Databases.store(Databases.H2_URL, JdbcDialect.h2(), false);

  @Nested
  class Store extends IdempotencyStoreContract {
    @Override
    protected IdempotencyStore store() {
      return STORE;
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
