package dev.idem.jdbc;

import dev.idem.core.state.StateStore;
import dev.idem.testsupport.StateStoreContract;
import org.junit.jupiter.api.Nested;

/** The state store contract on a payments table in a real PostgreSQL server. */
class PostgresJdbcStateStoreIT {

  private static final JdbcStateStore<StateStoreContract.PaymentStatus> STORE =
      LockFixtures.payments(Databases.POSTGRES_URL);

  @Nested
  class States extends StateStoreContract {
    @Override
    protected StateStore<String, PaymentStatus> store() {
      return STORE;
    }

    @Override
    protected void create(String id, PaymentStatus status) {
      LockFixtures.insertPayment(Databases.POSTGRES_URL, id, status);
    }
  }
}
