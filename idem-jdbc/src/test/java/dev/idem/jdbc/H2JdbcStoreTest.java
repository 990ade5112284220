package dev.idem.jdbc;

import dev.idem.core.IdempotencyStore;
import dev.idem.testsupport.EngineContract;
import dev.idem.testsupport.IdempotencyStoreContract;
import dev.idem.testsupport.TokenContract;
import org.junit.jupiter.api.Nested;

/** The store, token and engine contracts on an embedded H2 database. */
class H2JdbcStoreTest {

  private static final String URL = Databases.H2_URL;
  private static final JdbcDialect DIALECT = JdbcDialect.h2();

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

  @Nested
  class JoinedStore extends IdempotencyStoreContract {
    private final IdempotencyStore store = joined();

    @Override
    protected IdempotencyStore store() {
      return store;
    }
  }

  @Nested
  class JoinedTokens extends TokenContract {
    private final IdempotencyStore store = joined();

    @Override
    protected IdempotencyStore store() {
      return store;
    }
  }

  @Nested
  class Specific extends JdbcStoreTests {
    @Override
    protected String url() {
      return URL;
    }

    @Override
    protected JdbcDialect dialect() {
      return DIALECT;
    }
  }

  @Nested
  class JoinMode extends JoinModeTests {
    @Override
    protected String url() {
      return URL;
    }

    @Override
    protected JdbcDialect dialect() {
      return DIALECT;
    }

    @Override
    protected boolean shared() {
      return false;
    }
  }

  private static IdempotencyStore joined() {
    JdbcTransactions tx = new JdbcTransactions(Databases.pool(URL));
    JdbcStoreConfig config =
        JdbcStoreConfig.custom(DIALECT).joinTransactions(tx).sharedBetweenProcesses(false).build();
    return new TransactionPerCall(new JdbcIdempotencyStore(Databases.pool(URL), config), tx);
  }
}
