package dev.idem.core.hot;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link HotAccountStore} in memory, for tests and single-process demos. A batch is applied under
 * one lock for the whole store, so it is atomic and every batch sees the last one whole. Request
 * ids are unique across all accounts, as a unique index on a ledger would make them.
 *
 * @param <K> the account id type
 */
public final class InMemoryHotAccountStore<K> implements HotAccountStore<K> {

  private final Map<K, BigDecimal> balances = new HashMap<>();
  private final Map<K, List<Deduction>> ledgers = new HashMap<>();
  private final Map<String, K> requestIds = new HashMap<>();

  /** Creates {@code account} with {@code balance}, or sets the balance of an existing one. */
  public synchronized void open(K account, BigDecimal balance) {
    Objects.requireNonNull(account, "account");
    if (balance == null || balance.signum() < 0) {
      throw new IllegalArgumentException("balance must not be negative, was " + balance);
    }
    balances.put(account, balance);
  }

  /** The account's balance, or empty when there is no such account. */
  public synchronized Optional<BigDecimal> balance(K account) {
    return Optional.ofNullable(balances.get(account));
  }

  /** The deductions applied to the account, in the order they were applied. */
  public synchronized List<Deduction> ledger(K account) {
    return List.copyOf(ledgers.getOrDefault(account, List.of()));
  }

  @Override
  public synchronized List<DeductionResult> apply(K account, List<Deduction> batch) {
    Objects.requireNonNull(account, "account");
    if (batch.isEmpty()) {
      throw new IllegalArgumentException("batch must not be empty");
    }
    BigDecimal balance = balances.get(account);
    List<DeductionResult> results = new ArrayList<>(batch.size());
    if (balance == null) {
      batch.forEach(d -> results.add(DeductionResult.UNKNOWN_ACCOUNT));
      return results;
    }
    List<Deduction> ledger = ledgers.computeIfAbsent(account, k -> new ArrayList<>());
    for (Deduction d : batch) {
      if (requestIds.containsKey(d.requestId())) {
        results.add(DeductionResult.DUPLICATE);
      } else if (balance.compareTo(d.amount()) < 0) {
        results.add(DeductionResult.INSUFFICIENT_FUNDS);
      } else {
        balance = balance.subtract(d.amount());
        requestIds.put(d.requestId(), account);
        ledger.add(d);
        results.add(DeductionResult.APPLIED);
      }
    }
    balances.put(account, balance);
    return results;
  }
}
