package dev.idem.testsupport;

import dev.idem.core.hot.Deduction;
import dev.idem.core.hot.HotAccountStore;
import dev.idem.core.hot.InMemoryHotAccountStore;
import java.math.BigDecimal;
import java.util.List;

class InMemoryHotAccountStoreContractTest extends HotAccountStoreContract {

  private final InMemoryHotAccountStore<String> store = new InMemoryHotAccountStore<>();

  @Override
  protected HotAccountStore<String> store() {
    return store;
  }

  @Override
  protected void open(String account, BigDecimal balance) {
    store.open(account, balance);
  }

  @Override
  protected BigDecimal balance(String account) {
    return store.balance(account).orElseThrow();
  }

  @Override
  protected Ledger ledger(String account) {
    List<Deduction> rows = store.ledger(account);
    return new Ledger(
        rows.size(), rows.stream().map(Deduction::amount).reduce(BigDecimal.ZERO, BigDecimal::add));
  }
}
