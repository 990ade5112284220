package dev.idem.core.hot;

import java.util.List;

/**
 * Where account balances and their deductions live. One method: apply a batch of deductions to one
 * account, atomically.
 *
 * @param <K> the account id type; needs value equality ({@code String}, {@code Long}, {@code UUID})
 */
@FunctionalInterface
public interface HotAccountStore<K> {

  /**
   * Applies {@code batch} to {@code account} in one transaction, in list order: each deduction
   * whose request id was applied before (earlier in this batch, or by anyone at any time before) is
   * {@link DeductionResult#DUPLICATE}; each other one is {@link DeductionResult#APPLIED} when the
   * balance left by the deductions before it covers its amount, else {@link
   * DeductionResult#INSUFFICIENT_FUNDS}. Applied deductions are recorded under their request id and
   * their total leaves the balance, which never goes below zero. Safe to call from several threads
   * and processes at once for the same account: the store serialises them.
   *
   * @param batch one or more deductions
   * @return one result per deduction, in the same order
   * @throws RuntimeException when the batch could not be applied; then none of it was
   */
  List<DeductionResult> apply(K account, List<Deduction> batch);
}
