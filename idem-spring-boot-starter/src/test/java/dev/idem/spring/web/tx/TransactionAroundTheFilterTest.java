package dev.idem.spring.web.tx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spring.Idempotent;
import dev.idem.spring.web.IdempotencyFilter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@link TransactionAroundTheFilterContract} on Spring MVC: a {@code TransactionTemplate} in a
 * servlet filter before Idem's, with the in-memory store (held until the transaction ends) and the
 * JDBC store (writing in it).
 */
class TransactionAroundTheFilterTest {

  static final String ROLL_BACK = TransactionAroundTheFilterContract.ROLL_BACK;

  abstract static class Contract extends TransactionAroundTheFilterContract {
    @Autowired Ledger ledger;
    @Autowired IdempotencyStore store;

    abstract Class<? extends IdempotencyStore> expectedStore();

    @Override
    protected TransactionAroundTheFilterContract.Ledger ledger() {
      return ledger;
    }

    @Test
    void runsOnTheStoreItNames() {
      assertThat(store).isInstanceOf(expectedStore());
    }
  }

  @Nested
  @SpringBootTest(
      classes = App.class,
      webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
      properties = {
        "idem.store=jdbc",
        "spring.application.name=tx-filter-jdbc",
        TransactionAroundTheFilterContract.MAX_BODY_BYTES
      })
  class JdbcStoreJoiningTheTransaction extends Contract {
    @Override
    Class<? extends IdempotencyStore> expectedStore() {
      return JdbcIdempotencyStore.class;
    }
  }

  @Nested
  @SpringBootTest(
      classes = App.class,
      webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
      properties = {
        "idem.store=memory",
        "spring.application.name=tx-filter-memory",
        TransactionAroundTheFilterContract.MAX_BODY_BYTES
      })
  class InMemoryStoreAfterTheTransaction extends Contract {
    @Override
    Class<? extends IdempotencyStore> expectedStore() {
      return InMemoryIdempotencyStore.class;
    }
  }

  @SpringBootConfiguration
  // Spring Data Redis is on the test class path; these applications pick their store otherwise.
  @EnableAutoConfiguration(
      excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
  @Import(Ledger.class)
  static class App {
    @Bean
    DataSource dataSource() {
      DataSource h2 =
          new DriverManagerDataSource(
              "jdbc:h2:mem:tx_filter_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
      new JdbcTemplate(h2).execute("CREATE TABLE ledger (order_no VARCHAR(100) NOT NULL)");
      return h2;
    }

    @Bean
    DataSourceTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    /** Runs the rest of the chain, the Idempotency-Key filter included, in one transaction. */
    @Bean
    FilterRegistrationBean<OncePerRequestFilter> transactionAround(
        DataSourceTransactionManager transactions) {
      TransactionTemplate template = new TransactionTemplate(transactions);
      OncePerRequestFilter filter =
          new OncePerRequestFilter() {
            @Override
            protected void doFilterInternal(
                HttpServletRequest request, HttpServletResponse response, FilterChain chain) {
              // a header of the application's own, set before the handler: every answer keeps it
              response.setHeader("X-Outer", "kept");
              template.executeWithoutResult(
                  status -> {
                    try {
                      chain.doFilter(request, response);
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                    if (Boolean.parseBoolean(request.getHeader(ROLL_BACK))) {
                      status.setRollbackOnly();
                    }
                  });
            }
          };
      FilterRegistrationBean<OncePerRequestFilter> registration =
          new FilterRegistrationBean<>(filter);
      registration.setOrder(IdempotencyFilter.ORDER - 1);
      return registration;
    }
  }

  @RestController
  static class Ledger implements TransactionAroundTheFilterContract.Ledger {
    final AtomicInteger runs = new AtomicInteger();
    final Set<String> failCommitOf = ConcurrentHashMap.newKeySet();
    final Map<String, AtomicInteger> placed = new ConcurrentHashMap<>();
    private final JdbcTemplate jdbc;

    Ledger(DataSource dataSource) {
      this.jdbc = new JdbcTemplate(dataSource);
    }

    @Override
    public int rows(String orderNo) {
      return jdbc.queryForObject(
          "SELECT COUNT(*) FROM ledger WHERE order_no = ?", Integer.class, orderNo);
    }

    @Override
    public int runs() {
      return runs.get();
    }

    @Override
    public void failCommitOf(String orderNo) {
      failCommitOf.add(orderNo);
    }

    /**
     * Writes its row and answers 201; for an order in {@link #failCommitOf}, the first time, the
     * transaction's commit then fails.
     */
    @Idempotent
    @PostMapping("/placed/{orderNo}")
    ResponseEntity<String> place(@PathVariable("orderNo") String orderNo) {
      int run = placed.computeIfAbsent(orderNo, o -> new AtomicInteger()).incrementAndGet();
      jdbc.update("INSERT INTO ledger (order_no) VALUES (?)", orderNo);
      if (failCommitOf.remove(orderNo)) {
        TransactionSynchronizationManager.registerSynchronization(
            new TransactionSynchronization() {
              @Override
              public void beforeCommit(boolean readOnly) {
                throw new IllegalStateException("refused at commit");
              }
            });
      }
      return ResponseEntity.status(201)
          .header("Location", "/placed/" + orderNo + "/" + run)
          .body("placed #" + run);
    }

    @Idempotent
    @PostMapping("/large/{orderNo}")
    ResponseEntity<String> large(@PathVariable("orderNo") String orderNo) {
      int run =
          placed.computeIfAbsent("large " + orderNo, o -> new AtomicInteger()).incrementAndGet();
      jdbc.update("INSERT INTO ledger (order_no) VALUES (?)", orderNo);
      String answer = "large #" + run + " ";
      return ResponseEntity.status(201)
          .body(
              answer
                  + "x"
                      .repeat(
                          TransactionAroundTheFilterContract.LARGE_ANSWER_BYTES - answer.length()));
    }

    @Idempotent
    @PostMapping("/ledger/{orderNo}")
    ResponseEntity<String> write(@PathVariable("orderNo") String orderNo) {
      runs.incrementAndGet();
      jdbc.update("INSERT INTO ledger (order_no) VALUES (?)", orderNo);
      return ResponseEntity.status(500).body("the gateway failed after the write #" + runs.get());
    }
  }
}
