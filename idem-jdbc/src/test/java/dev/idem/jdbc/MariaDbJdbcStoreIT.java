package dev.idem.jdbc;

import dev.idem.core.IdempotencyStore;
import dev.idem.testsupport.EngineContract;
import dev.idem.testsupport.IdempotencyStoreContract;
import dev.idem.testsupport.TokenContract;
import java.util.function.Supplier;
import org.junit.jupiter.api.Nested;

/** The store, token and engine contracts on a real MariaDB server (MySQL dialect). */
class MariaDbJdbcStoreIT {

  private static final String URL = Databases.MARIADB_URL;
  private static final JdbcDialect DIALECT = JdbcDialect.mysql();
  private static final Class<? extends Supplier<IdempotencyStore>> STORE_FACTORY =
      Databases.MariaDbStore.class;

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

  @Nested
  class JoinedStore extends IdempotencyStoreContract {
    private final IdempotencyStore store = joined();

    @Override
    protected IdempotencyStore store() {
      return store;
    }

    @Override
    protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
      return STORE_FACTORY;
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
  }

  private static IdempotencyStore joined() {
    JdbcTransactions tx = new JdbcTransactions(Databases.pool(URL));
    JdbcStoreConfig config =
        JdbcStoreConfig.custom(DIALECT).joinTransactions(tx).sharedBetweenProcesses(true).build();
    return new TransactionPerCall(new JdbcIdempotencyStore(Databases.pool(URL), config), tx);
  }
}
