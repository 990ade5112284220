package dev.idem.shop.payment;

import dev.idem.core.resume.ResumeLog;
import dev.idem.core.retry.OptimisticRetry;
import dev.idem.core.state.StateTransitions;
import dev.idem.jdbc.JdbcBalance;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcResumeLog;
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

  /**
   * The completer's log of resumable calls (the payments' flows), in the database whatever holds
   * the idempotency records: a Redis that lost its data loses no payment left to finish, and a
   * payment's entry is as durable as the payment.
   */
  @Bean
  ResumeLog paymentFlowLog(DataSource dataSource) throws SQLException {
    return new JdbcResumeLog(dataSource, JdbcDialect.detect(dataSource));
  }
}
