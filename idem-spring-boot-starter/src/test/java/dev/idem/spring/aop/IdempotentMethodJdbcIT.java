package dev.idem.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spring.aop.Orders.Placed;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
 * On PostgreSQL, {@code @Idempotent} inside {@code @Transactional} writes its record in the
 * method's transaction: the business row and the record commit or roll back together, and
 * concurrent calls with one key have one effect.
 */
class IdempotentMethodJdbcIT {

  private static final String URL =
      System.getenv()
          .getOrDefault("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
  private static final String TABLE =
      "idem_aop_orders_" + Integer.toUnsignedString(ThreadLocalRandom.current().nextInt(), 36);

  private static HikariDataSource dataSource;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withPropertyValues("idem.jdbc.initialize-schema=always")
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
          .withUserConfiguration(Application.class);

  @BeforeAll
  static void createTable() {
    dataSource = new HikariDataSource();
    dataSource.setJdbcUrl(URL);
    dataSource.setMaximumPoolSize(20);
    new JdbcTemplate(dataSource)
        .execute(
            "CREATE TABLE "
                + TABLE
                + " (id BIGSERIAL PRIMARY KEY, order_no VARCHAR(100) NOT NULL, amount BIGINT)");
  }

  @AfterAll
  static void dropTable() {
    new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + TABLE);
    dataSource.close();
  }

  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class Application {
    /** The pool outlives each context: it belongs to the test class. */
    @Bean(destroyMethod = "")
    DataSource dataSource() {
      return dataSource;
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    JdbcTemplate jdbcTemplate(DataSource dataSource) {
      return new JdbcTemplate(dataSource);
    }

    @Bean
    Orders orders(JdbcTemplate jdbc) {
      return new Orders(jdbc, TABLE);
    }
  }

  private static int rows(String orderNo) {
    return new JdbcTemplate(dataSource)
        .queryForObject(
            "SELECT count(*) FROM " + TABLE + " WHERE order_no = ?", Integer.class, orderNo);
  }

  @Test
  void aRollbackLeavesNeitherTheBusinessRowNorTheRecord() {
    runner.run(
        context -> {
          IdempotencyStore store = context.getBean(IdempotencyStore.class);
          assertThat(store).isInstanceOf(JdbcIdempotencyStore.class);
          Orders orders = context.getBean(Orders.class);
          String orderNo = UUID.randomUUID().toString();
          IdempotencyKey key = IdempotencyKey.of("Orders.place", orderNo);
          new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
              .executeWithoutResult(
                  status -> {
                    orders.place(orderNo, 100);
                    assertThat(store.find(key)).isPresent();
                    status.setRollbackOnly();
                  });
          assertThat(rows(orderNo)).isZero();
          assertThat(store.find(key)).isEmpty();

          Placed placed = orders.place(orderNo, 100);
          assertThat(orders.place(orderNo, 100)).isEqualTo(placed);
          assertThat(rows(orderNo)).isEqualTo(1);
          assertThat(store.find(key)).isPresent();
        });
  }

  @Test
  void aChargeThatDeclaresNoTransactionIsStoredWhenItReturnsWhateverItsCallersTransactionDoes() {
    runner.run(
        context -> {
          IdempotencyStore store = context.getBean(IdempotencyStore.class);
          Orders orders = context.getBean(Orders.class);
          String orderNo = UUID.randomUUID().toString();
          TransactionTemplate checkout =
              new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
          for (int attempt = 0; attempt < 3; attempt++) {
            assertThatThrownBy(
                    () ->
                        checkout.executeWithoutResult(
                            status -> {
                              orders.charge(orderNo);
                              throw new IllegalStateException("the checkout failed after it");
                            }))
                .isInstanceOf(IllegalStateException.class);
          }
          assertThat(orders.charges()).isEqualTo(1);
          assertThat(store.find(IdempotencyKey.of("Orders.charge", orderNo))).isPresent();
        });
  }

  @Test
  void aMethodThatFailsAfterItsInsertLeavesNeitherRowNorRecord() {
    runner.run(
        context -> {
          Orders orders = context.getBean(Orders.class);
          String orderNo = UUID.randomUUID().toString();
          assertThatThrownBy(() -> orders.placeThenFail(orderNo, 5))
              .isInstanceOf(IllegalStateException.class);
          assertThat(rows(orderNo)).isZero();
          assertThat(
                  context
                      .getBean(IdempotencyStore.class)
                      .find(IdempotencyKey.of("Orders.placeThenFail", orderNo)))
              .isEmpty();
        });
  }

  @Test
  void sixteenThreadsWithOneKeyHaveOneEffectAndOneAnswer() {
    runner.run(
        context -> {
          Orders orders = context.getBean(Orders.class);
          String orderNo = UUID.randomUUID().toString();
          int threads = 16;
          CountDownLatch start = new CountDownLatch(1);
          ExecutorService pool = Executors.newFixedThreadPool(threads);
          try {
            List<Future<Placed>> answers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
              answers.add(
                  pool.submit(
                      () -> {
                        start.await();
                        return orders.placeWaiting(orderNo, 42);
                      }));
            }
            start.countDown();
            List<Placed> placed = new ArrayList<>();
            for (Future<Placed> answer : answers) {
              placed.add(answer.get());
            }
            assertThat(placed).hasSize(threads).containsOnly(placed.get(0));
            assertThat(rows(orderNo)).isEqualTo(1);
          } finally {
            pool.shutdownNow();
          }
        });
  }
}
