package dev.idem.shop.payment;

import dev.idem.core.lock.LockProvider;
import dev.idem.core.retry.OptimisticRetry;
import dev.idem.core.state.StateTransitions;
import dev.idem.jdbc.JdbcBalance;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcLockConfig;
import dev.idem.jdbc.JdbcLockProvider;
import dev.idem.jdbc.JdbcStateStore;
import dev.idem.spring.SpringTransactionConnection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The core tools the payment flow is built from, bound to the shop's tables. */
@Configuration
class PaymentConfig {

  /** Guarded status writes on payment_records, inside the caller's transaction when one runs. */
  @Bean
  StateTransitions<String, PaymentStatus> paymentTransitions(DataSource dataSource) {
    return PaymentStatus.MACHINE.on(
        JdbcStateStore.builder(dataSource, PaymentStatus.class)
            .table("payment_records")
            .idColumn("payment_no")
            .statusColumn("status")
            .joinTransactions(new SpringTransactionConnection(dataSource))
            .build());
  }

  @Bean
  JdbcBalance walletBalance() {
    return new JdbcBalance("accounts", "username", "balance", "version");
  }

  @Bean
  OptimisticRetry walletRetry() {
    return OptimisticRetry.custom()
        .maxAttempts(10)
        .baseDelay(Duration.ofMillis(2))
        .maxDelay(Duration.ofMillis(100))
        .build();
  }

  /** Jobs that must run on one instance at a time take their lock here (table idem_locks). */
  @Bean
  LockProvider jobLocks(DataSource dataSource) throws SQLException {
    return new JdbcLockProvider(dataSource, JdbcLockConfig.of(JdbcDialect.detect(dataSource)));
  }
}
