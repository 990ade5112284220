package dev.idem.testsupport;

import dev.idem.core.state.InMemoryStateStore;
import dev.idem.core.state.StateStore;

class InMemoryStateStoreContractTest extends StateStoreContract {

  private final InMemoryStateStore<String, PaymentStatus> store = new InMemoryStateStore<>();

  @Override
  protected StateStore<String, PaymentStatus> store() {
    return store;
  }

  @Override
  protected void create(String id, PaymentStatus status) {
    store.put(id, status);
  }
}
