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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import org.springframework.boot.test.web.server.LocalServerPort;
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
 * A transaction around the filter decides: a handler that writes its row and then answers 500
 * commits the row, so the answer is stored and replayed and the handler never runs twice; an answer
 * whose transaction fails to commit or rolls back never reaches the client, who is told that
 * nothing was kept, and its key is freed.
 */
class TransactionAroundTheFilterTest {

  // a request header that has the transaction around the filter roll back, without an exception
  static final String ROLL_BACK = "X-Roll-Back";

  abstract static class Contract {
    @LocalServerPort int port;
    @Autowired Ledger ledger;
    @Autowired IdempotencyStore store;

    abstract Class<? extends IdempotencyStore> expectedStore();

    @Test
    void aServerErrorWhoseWritesCommittedIsStoredAndReplayedNotRunAgain() throws Exception {
      assertThat(store).isInstanceOf(expectedStore());
      String orderNo = UUID.randomUUID().toString();
      HttpResponse<String> first = post(orderNo);
      // the answer went out once the transaction had committed, with the record
      HttpResponse<String> again = post(orderNo);
      assertThat(first.statusCode()).isEqualTo(500);
      assertThat(again.statusCode()).isEqualTo(500);
      assertThat(again.body()).isEqualTo(first.body());
      assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(ledger.rows(orderNo)).isEqualTo(1);
      assertThat(ledger.runs.get()).isEqualTo(1);
    }

    @Test
    void anAnswerWhoseTransactionFailsToCommitNeverReachesTheClientAndTheKeyIsFreed()
        throws Exception {
      String orderNo = UUID.randomUUID().toString();
      ledger.failCommitOf.add(orderNo);

      // the handler answered 201, then the commit failed (a flush at commit refused, as an ORM's
      // may be): the client must not be told the order was placed
      HttpResponse<String> failed = post("/placed/", orderNo);
      assertToldNothingWasKept(failed, orderNo);
      assertTheRetryRunsAndIsKept(orderNo);
    }

    @Test
    void anAnswerWhoseTransactionTheApplicationRollsBackNeverReachesTheClient() throws Exception {
      String orderNo = UUID.randomUUID().toString();

      // the application rolls its transaction back without an exception: no answer of the
      // handler's may go out, nor an empty 200
      HttpResponse<String> rolledBack = post("/placed/", orderNo, true);
      assertToldNothingWasKept(rolledBack, orderNo);
      assertTheRetryRunsAndIsKept(orderNo);
    }

    private void assertToldNothingWasKept(HttpResponse<String> answer, String orderNo) {
      assertThat(answer.statusCode()).isEqualTo(503);
      assertThat(answer.body()).contains("urn:idem:problem:rolled-back").doesNotContain("placed #");
      assertThat(answer.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(answer.headers().firstValue("Idempotent-Replayed")).isEmpty();
      // nothing of the handler's answer, headers included: its Location names what was undone
      assertThat(answer.headers().firstValue("Location")).isEmpty();
      assertThat(answer.headers().firstValue("X-Outer")).hasValue("kept");
      assertThat(ledger.rows(orderNo)).isZero();
    }

    // nothing happened, so the retry runs the handler, and its answer is the one kept
    private void assertTheRetryRunsAndIsKept(String orderNo) throws Exception {
      HttpResponse<String> retried = post("/placed/", orderNo);
      HttpResponse<String> again = post("/placed/", orderNo);
      assertThat(retried.statusCode()).isEqualTo(201);
      assertThat(retried.body()).isEqualTo("placed #2");
      assertThat(again.body()).isEqualTo("placed #2");
      assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(ledger.rows(orderNo)).isEqualTo(1);
    }

    private HttpResponse<String> post(String orderNo) throws Exception {
      return post("/ledger/", orderNo);
    }

    private HttpResponse<String> post(String path, String orderNo) throws Exception {
      return post(path, orderNo, false);
    }

    private HttpResponse<String> post(String path, String orderNo, boolean rollBack)
        throws Exception {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path + orderNo))
                  .header("Idempotency-Key", orderNo)
                  .header(ROLL_BACK, Boolean.toString(rollBack))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    }
  }

  @Nested
  @SpringBootTest(
      classes = App.class,
      webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
      properties = {"idem.store=jdbc", "spring.application.name=tx-filter-jdbc"})
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
      properties = {"idem.store=memory", "spring.application.name=tx-filter-memory"})
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
  static class Ledger {
    final AtomicInteger runs = new AtomicInteger();
    final Set<String> failCommitOf = ConcurrentHashMap.newKeySet();
    final Map<String, AtomicInteger> placed = new ConcurrentHashMap<>();
    private final JdbcTemplate jdbc;

    Ledger(DataSource dataSource) {
      this.jdbc = new JdbcTemplate(dataSource);
    }

    int rows(String orderNo) {
      return jdbc.queryForObject(
          "SELECT COUNT(*) FROM ledger WHERE order_no = ?", Integer.class, orderNo);
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
    @PostMapping("/ledger/{orderNo}")
    ResponseEntity<String> write(@PathVariable("orderNo") String orderNo) {
      runs.incrementAndGet();
      jdbc.update("INSERT INTO ledger (order_no) VALUES (?)", orderNo);
      return ResponseEntity.status(500).body("the gateway failed after the write #" + runs.get());
    }
  }
}
