package dev.idem.spring.tx;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import javax.sql.DataSource;
import org.junit.jupiter.api.Nested;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** The transaction decides, on H2: the JDBC store in join mode, and the in-memory store. */
class TransactionDecidesTest {

  private static final DataSource H2 =
      new DriverManagerDataSource("jdbc:h2:mem:idem_tx_decides;DB_CLOSE_DELAY=-1");

  @Nested
  class JdbcStoreJoiningTheTransaction extends TransactionDecidesContract {
    JdbcStoreJoiningTheTransaction() {
      super(H2, JdbcIdempotencyStore.class, "idem.store=jdbc");
    }
  }

  @Nested
  class InMemoryStoreAfterTheTransaction extends TransactionDecidesContract {
    InMemoryStoreAfterTheTransaction() {
      super(H2, InMemoryIdempotencyStore.class, "idem.store=memory");
    }
  }
}
