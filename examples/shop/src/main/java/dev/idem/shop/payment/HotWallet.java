package dev.idem.shop.payment;

import dev.idem.core.hot.DeductionResult;
import dev.idem.core.hot.HotAccountConfig;
import dev.idem.core.hot.HotAccountException;
import dev.idem.core.hot.HotAccountExecutor;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcHotAccountStore;
import dev.idem.shop.ShopProperties;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.stereotype.Component;

/**
 * The wallet as core's hot account: debits go through a {@link HotAccountExecutor} onto a {@link
 * JdbcHotAccountStore} on the shop's own tables ({@code accounts}, and {@code wallet_ledger} whose
 * unique {@code order_no} is the request id). The store commits each batch in its own transaction,
 * with its ledger rows, so the debit of an order happens once whoever asks for it: the request that
 * opened the payment, a retry, or a rerun of its flow finishing a payment left behind.
 *
 * <p>Batches of concurrent debits when {@code shop.wallet.mode=coalesce}, one debit at a time with
 * {@code serialize}; a rerun of a payment's flow that finds it PROCESSING uses it in every mode.
 */
@Component
class HotWallet {

  private final HotAccountExecutor<String> executor;

  HotWallet(DataSource dataSource, ShopProperties properties) throws SQLException {
    JdbcHotAccountStore<String> store =
        JdbcHotAccountStore.builder(dataSource, JdbcDialect.detect(dataSource))
            .accounts("accounts", "username", "balance")
            .version("version")
            .ledger("wallet_ledger", "username", "order_no", "amount")
            .build();
    HotAccountConfig.Mode mode =
        properties.wallet().mode() == ShopProperties.Wallet.Mode.SERIALIZE
            ? HotAccountConfig.Mode.SERIALIZE
            : HotAccountConfig.Mode.COALESCE;
    this.executor = new HotAccountExecutor<>(store, HotAccountConfig.custom().mode(mode).build());
  }

  /**
   * Debits the payment's amount from its payer once for its order, and waits for the answer:
   * APPLIED now, DUPLICATE when the order's debit was made before, or a refusal (nothing debited).
   *
   * @throws WalletBusyException when the answer did not come (queue full, wait over, batch failed):
   *     the payment stays PROCESSING, and asking again is safe
   */
  DeductionResult debit(Payment payment) {
    try {
      return executor.deduct(payment.username(), payment.orderNo(), payment.amount());
    } catch (HotAccountException e) {
      throw new WalletBusyException(payment.paymentNo(), e);
    }
  }
}
