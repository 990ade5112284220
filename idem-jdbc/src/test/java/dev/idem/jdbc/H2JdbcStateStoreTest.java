package dev.idem.jdbc;

import dev.idem.core.state.StateStore;
import dev.idem.testsupport.StateStoreContract;
import org.junit.jupiter.api.Nested;

/** The state store contract on a payments table in an embedded H2 database. */
class H2JdbcStateStoreTest {

  private static final JdbcStateStore<StateStoreContract.PaymentStatus> STORE =
      LockFixtures.payments(Databases.H2_URL);

  @Nested
  class States extends StateStoreContract {
    @Override
    protected StateStore<String, PaymentStatus> store() {
      return STORE;
    }

    @Override
    protected void create(String id, PaymentStatus status) {
      LockFixtures.insertPayment(Databases.H2_URL, id, status);
    }
  }
}
