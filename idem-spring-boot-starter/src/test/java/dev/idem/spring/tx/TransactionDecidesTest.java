package dev.idem.spring.tx;

import dev.idem.core.IdempotencyStore;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import javax.sql.DataSource;
import org.junit.jupiter.api.Nested;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** The transaction decides, on H2: the JDBC store in join mode, and the in-memory store. */
class TransactionDecidesTest {

  private static final DataSource H2 =
      new DriverManagerDataSource("jdbc:h2:mem:idem_tx_decides;DB_CLOSE_DELAY=-1");

  @Nested
  class JdbcStoreJoiningTheTransaction extends TransactionDecidesContract {
    @Override
    DataSource database() {
      return H2;
    }

    @Override
    ApplicationContextRunner withStore(ApplicationContextRunner runner) {
      return runner.withPropertyValues("idem.store=jdbc");
    }

    @Override
    Class<? extends IdempotencyStore> expectedStore() {
      return JdbcIdempotencyStore.class;
    }
  }

  @Nested
  class InMemoryStoreAfterTheTransaction extends TransactionDecidesContract {
    @Override
    DataSource database() {
      return H2;
    }

    @Override
    ApplicationContextRunner withStore(ApplicationContextRunner runner) {
      return runner.withPropertyValues("idem.store=memory");
    }

    @Override
    Class<? extends IdempotencyStore> expectedStore() {
      return InMemoryIdempotencyStore.class;
    }
  }
}
