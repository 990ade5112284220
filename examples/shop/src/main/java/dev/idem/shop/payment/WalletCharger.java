package dev.idem.shop.payment;

import dev.idem.core.retry.OptimisticRetry;
import dev.idem.core.state.StateTransitions;
import dev.idem.jdbc.JdbcBalance;
import dev.idem.shop.ShopProperties;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Pays from the wallet. One transaction makes the payment's guarded PROCESSING → SUCCESS
 * transition, deducts the balance, writes the ledger row (unique per order) and the success
 * effects; whoever loses the transition does nothing. The deduction is the article's optimistic
 * lock (read balance and version, write at that version, retried with backoff by {@link
 * OptimisticRetry}), or with {@code shop.wallet.mode=conditional} one conditional update.
 */
@Component
class WalletCharger {

  enum Result {
    PAID,
    ALREADY_SETTLED,
    INSUFFICIENT_FUNDS
  }

  private final StateTransitions<String, PaymentStatus> transitions;
  private final JdbcBalance balance;
  private final OptimisticRetry retry;
  private final Settlement settlement;
  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;
  private final boolean conditional;

  WalletCharger(
      StateTransitions<String, PaymentStatus> transitions,
      JdbcBalance balance,
      OptimisticRetry retry,
      Settlement settlement,
      JdbcTemplate jdbc,
      TransactionTemplate tx,
      ShopProperties properties) {
    this.transitions = transitions;
    this.balance = balance;
    this.retry = retry;
    this.settlement = settlement;
    this.jdbc = jdbc;
    this.tx = tx;
    this.conditional = "conditional".equalsIgnoreCase(properties.wallet().mode());
  }

  Result charge(Payment payment) {
    Result result = retry.execute(() -> tx.execute(s -> attempt(payment, s)));
    if (result == Result.INSUFFICIENT_FUNDS) {
      settlement.settle(payment, PaymentStatus.FAILED, "insufficient funds");
    }
    return result;
  }

  /** One try in its own transaction; empty when the version moved on (rolled back, retried). */
  private Optional<Result> attempt(Payment payment, TransactionStatus status) {
    if (!transitions
        .transition(payment.paymentNo(), PaymentStatus.PROCESSING, PaymentStatus.SUCCESS)
        .changed()) {
      return Optional.of(Result.ALREADY_SETTLED);
    }
    Optional<Result> deducted = deduct(payment);
    if (deducted.isEmpty() || deducted.get() != Result.PAID) {
      status.setRollbackOnly();
      return deducted;
    }
    jdbc.update(
        "INSERT INTO wallet_ledger (order_no, username, payment_no, amount) VALUES (?, ?, ?, ?)",
        payment.orderNo(),
        payment.username(),
        payment.paymentNo(),
        payment.amount());
    settlement.succeeded(payment);
    return deducted;
  }

  private Optional<Result> deduct(Payment payment) {
    return jdbc.execute(
        (java.sql.Connection c) -> {
          if (conditional) {
            return Optional.of(
                balance.deduct(c, payment.username(), payment.amount())
                    ? Result.PAID
                    : Result.INSUFFICIENT_FUNDS);
          }
          JdbcBalance.Versioned seen =
              balance
                  .read(c, payment.username())
                  .orElseThrow(() -> new IllegalStateException("no wallet " + payment.username()));
          if (seen.amount().compareTo(payment.amount()) < 0) {
            return Optional.of(Result.INSUFFICIENT_FUNDS);
          }
          return balance.deductAtVersion(c, payment.username(), payment.amount(), seen.version())
              ? Optional.of(Result.PAID)
              : Optional.<Result>empty();
        });
  }
}
