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
 * Pays from the wallet, by the mode {@code shop.wallet.mode} names.
 *
 * <p>{@code versioned} and {@code conditional}: one transaction makes the payment's guarded
 * PROCESSING → SUCCESS transition, deducts the balance, writes the ledger row (unique per order)
 * and the success effects; whoever loses the transition does nothing. The deduction is the
 * article's optimistic lock (read balance and version, write at that version, retried with backoff
 * by {@link OptimisticRetry}), or one conditional update.
 *
 * <p>{@code coalesce} and {@code serialize}: the debit and its ledger row are committed first by
 * the {@link HotWallet}, in a transaction of its own; the payment then follows the ledger. A debit
 * made now or before (the ledger has the order's row) settles it SUCCESS, and that transaction
 * writes the payment number into the ledger row; a refusal settles it FAILED. A crash between the
 * two commits leaves the payment PROCESSING with its debit made: the flow's rerun settles it
 * ({@link #finish}).
 */
@Component
class WalletCharger {

  enum Result {
    PAID,
    ALREADY_SETTLED,
    INSUFFICIENT_FUNDS,
    UNKNOWN_ACCOUNT
  }

  /** The failure reason of a payment whose payer has no wallet. */
  static final String UNKNOWN_ACCOUNT = "unknown account";

  private final StateTransitions<String, PaymentStatus> transitions;
  private final JdbcBalance balance;
  private final OptimisticRetry retry;
  private final Settlement settlement;
  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;
  private final HotWallet hot;
  private final ShopProperties.Wallet.Mode mode;

  WalletCharger(
      StateTransitions<String, PaymentStatus> transitions,
      JdbcBalance balance,
      OptimisticRetry retry,
      Settlement settlement,
      JdbcTemplate jdbc,
      TransactionTemplate tx,
      HotWallet hot,
      ShopProperties properties) {
    this.transitions = transitions;
    this.balance = balance;
    this.retry = retry;
    this.settlement = settlement;
    this.jdbc = jdbc;
    this.tx = tx;
    this.hot = hot;
    this.mode = properties.wallet().mode();
  }

  /**
   * Pays a PROCESSING wallet payment, or finds it settled.
   *
   * @throws WalletBusyException in the hot modes, when the debit got no answer (still PROCESSING)
   */
  Result charge(Payment payment) {
    if (mode.hot()) {
      return finish(payment);
    }
    Result result = retry.execute(() -> tx.execute(s -> attempt(payment, s)));
    if (result == Result.INSUFFICIENT_FUNDS) {
      settlement.settle(payment, PaymentStatus.FAILED, "insufficient funds");
    }
    return result;
  }

  /**
   * Settles a wallet payment from the ledger, in any mode: asks the hot wallet to debit the order
   * once, which answers DUPLICATE when the ledger has the order's row already, and settles the
   * payment from that answer. A rerun of the payment's flow comes here again for a payment left in
   * PROCESSING: the debit is finished rather than abandoned, since the request id makes finishing
   * it safe whatever is still in flight, while declaring it FAILED could not stop a debit queued a
   * moment before.
   *
   * @throws WalletBusyException when the debit got no answer (still PROCESSING)
   */
  Result finish(Payment payment) {
    return switch (hot.debit(payment)) {
      case APPLIED, DUPLICATE -> debited(payment);
      case INSUFFICIENT_FUNDS -> {
        // FAILED is final only because balances never go up in this shop: with a top-up, a
        // duplicate debit of this order still queued in the executor could find money and land
        // after the payment FAILED (a debit without a successful payment). Top-ups would need the
        // ledger row to be refused for a FAILED payment first.
        settlement.settle(payment, PaymentStatus.FAILED, "insufficient funds");
        yield Result.INSUFFICIENT_FUNDS;
      }
      case UNKNOWN_ACCOUNT -> {
        settlement.settle(
            payment,
            PaymentStatus.FAILED,
            UNKNOWN_ACCOUNT + ": no wallet for " + payment.username());
        yield Result.UNKNOWN_ACCOUNT;
      }
    };
  }

  // The ledger has the order's debit: the payment that wins the transition names itself in it.
  private Result debited(Payment payment) {
    return tx.execute(
        s -> {
          if (!transitions
              .transition(payment.paymentNo(), PaymentStatus.PROCESSING, PaymentStatus.SUCCESS)
              .changed()) {
            return Result.ALREADY_SETTLED;
          }
          jdbc.update(
              "UPDATE wallet_ledger SET payment_no = ? WHERE order_no = ? AND payment_no IS NULL",
              payment.paymentNo(),
              payment.orderNo());
          settlement.succeeded(payment);
          return Result.PAID;
        });
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
          if (mode == ShopProperties.Wallet.Mode.CONDITIONAL) {
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
