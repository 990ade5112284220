package dev.idem.spring.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.ReplayedFailureException;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The transaction decides the record's fate: an {@code @Transactional @Idempotent} method whose
 * transaction commits has its effect once, whatever it threw, and every repeat gets the first
 * answer; one whose transaction rolls back gives the key up. Each variant names a store; the
 * business rows always live in a real database.
 */
abstract class TransactionDecidesContract {

  private final DataSource database;
  private final Class<? extends IdempotencyStore> expectedStore;
  private final UnaryOperator<ApplicationContextRunner> withStore;

  /**
   * @param database the database of the business rows (and of the JDBC store, where it is one)
   * @param expectedStore the store class the context must pick
   * @param withStore adds the store under test to the context (properties, beans)
   */
  TransactionDecidesContract(
      DataSource database,
      Class<? extends IdempotencyStore> expectedStore,
      UnaryOperator<ApplicationContextRunner> withStore) {
    this.database = database;
    this.expectedStore = expectedStore;
    this.withStore = withStore;
  }

  /** A variant whose store is picked by {@code properties} alone. */
  TransactionDecidesContract(
      DataSource database, Class<? extends IdempotencyStore> expectedStore, String... properties) {
    this(database, expectedStore, runner -> runner.withPropertyValues(properties));
  }

  final String table =
      "idem_ledger_" + Integer.toUnsignedString(ThreadLocalRandom.current().nextInt(), 36);
  final String records = table + "_rec";
  private final String orderNo = "order-" + UUID.randomUUID();

  @BeforeEach
  void createTable() {
    jdbc().execute("CREATE TABLE " + table + " (order_no VARCHAR(100) NOT NULL)");
  }

  @AfterEach
  void dropTables() {
    jdbc().execute("DROP TABLE IF EXISTS " + table);
    jdbc().execute("DROP TABLE IF EXISTS " + records);
  }

  private JdbcTemplate jdbc() {
    return new JdbcTemplate(database);
  }

  private ApplicationContextRunner runner() {
    return withStore.apply(
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
            .withUserConfiguration(Transactions.class)
            .withBean(DataSource.class, () -> database, d -> d.setDestroyMethodName(""))
            .withBean(Ledger.class, () -> new Ledger(new JdbcTemplate(database), table))
            .withPropertyValues(
                "idem.jdbc.table=" + records, "idem.jdbc.initialize-schema=always"));
  }

  @Test
  void aCheckedExceptionCommitsTheEffectOnceAndRepeatsGetTheFailureBack() {
    runner()
        .run(
            context -> {
              assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(expectedStore);
              Ledger ledger = context.getBean(Ledger.class);
              assertThatThrownBy(() -> ledger.insertThenThrowChecked(orderNo))
                  .isInstanceOf(IOException.class);
              for (int repeat = 0; repeat < 2; repeat++) {
                assertThatThrownBy(() -> ledger.insertThenThrowChecked(orderNo))
                    .isInstanceOf(ReplayedFailureException.class)
                    .hasMessageContaining("reply was lost")
                    .extracting(e -> ((ReplayedFailureException) e).originalType())
                    .isEqualTo(IOException.class.getName());
              }
              assertThat(ledger.rows(orderNo)).isEqualTo(1);
              assertThat(ledger.runs()).isEqualTo(1);
            });
  }

  @Test
  void anExceptionTheTransactionDoesNotRollBackForCommitsTheEffectOnce() {
    runner()
        .run(
            context -> {
              Ledger ledger = context.getBean(Ledger.class);
              assertThatThrownBy(() -> ledger.insertThenThrowKept(orderNo))
                  .isInstanceOf(IllegalStateException.class);
              assertThatThrownBy(() -> ledger.insertThenThrowKept(orderNo))
                  .isInstanceOf(ReplayedFailureException.class)
                  .hasMessageContaining("declined");
              assertThat(ledger.rows(orderNo)).isEqualTo(1);
              assertThat(ledger.runs()).isEqualTo(1);
            });
  }

  @Test
  void aRollbackGivesTheKeyUpSoEveryRetryRunsAgain() {
    runner()
        .run(
            context -> {
              Ledger ledger = context.getBean(Ledger.class);
              for (int attempt = 0; attempt < 3; attempt++) {
                assertThatThrownBy(() -> ledger.insertThenThrowRolledBack(orderNo))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("rolls back");
              }
              assertThat(ledger.rows(orderNo)).isZero();
              assertThat(ledger.runs()).isEqualTo(3);
            });
  }

  @Test
  void anInnerRequiresNewTransactionThatCommittedKeepsItsRecordWhenTheOuterRollsBack() {
    runner()
        .run(
            context -> {
              Ledger ledger = context.getBean(Ledger.class);
              TransactionTemplate outer =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              String first =
                  outer.execute(
                      status -> {
                        String receipt = ledger.insertInOwnTransaction(orderNo);
                        status.setRollbackOnly();
                        return receipt;
                      });
              assertThat(ledger.insertInOwnTransaction(orderNo)).isEqualTo(first);
              assertThat(ledger.rows(orderNo)).isEqualTo(1);
              assertThat(ledger.runs()).isEqualTo(1);
            });
  }

  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class Transactions {
    @Bean
    DataSourceTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }
  }
}
