package dev.idem.spring.webflux.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.Idempotent;
import dev.idem.spring.web.tx.TransactionAroundTheFilterContract;
import dev.idem.spring.webflux.IdempotencyWebFilter;
import io.r2dbc.h2.H2ConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.http.ResponseEntity;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import org.springframework.transaction.reactive.TransactionalOperator;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * {@link TransactionAroundTheFilterContract} on WebFlux: a reactive transaction ({@code
 * TransactionalOperator} on R2DBC H2) in a {@code WebFilter} before Idem's decides as a
 * thread-bound one does on Spring MVC; and, since a reactive transaction can end while the handler
 * runs, a client that leaves mid-handler never leaves its key taken for ever.
 */
@SpringBootTest(
    classes = ReactiveTransactionAroundTheFilterTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.main.web-application-type=reactive",
      "idem.store=memory",
      "spring.application.name=reactive-tx-filter",
      TransactionAroundTheFilterContract.MAX_BODY_BYTES
    })
class ReactiveTransactionAroundTheFilterTest extends TransactionAroundTheFilterContract {

  @Autowired Ledger ledger;
  @Autowired IdempotencyStore store;

  @Override
  protected TransactionAroundTheFilterContract.Ledger ledger() {
    return ledger;
  }

  @Test
  void runsOnTheInMemoryStore() {
    assertThat(store).isInstanceOf(InMemoryIdempotencyStore.class);
  }

  @Test
  void aClientThatLeavesWhileTheHandlerRunsNeverLeavesItsKeyTakenForEver() throws Exception {
    String orderNo = UUID.randomUUID().toString();
    CompletableFuture<Void> release = new CompletableFuture<>();
    ledger.holdUntil.put(orderNo, release);

    // the client goes away mid-handler: the server cancels the exchange, and with it the
    // transaction, which rolls back before the handler's outcome is held
    leaveMidHandler(orderNo, () -> ledger.started.contains(orderNo), release);

    // the transaction rolled back when the client left, and the handler stopped with it: nothing
    // was kept, and the key is freed, never held in progress for ever; the retry writes once
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> post("/placed/", orderNo, false).statusCode() != 409);
    HttpResponse<String> again = post("/placed/", orderNo, false);
    assertThat(again.statusCode()).isEqualTo(201);
    assertThat(again.body()).isEqualTo("placed #2");
    assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(ledger.rows(orderNo)).isEqualTo(1);
  }

  @Test
  void aClientThatLeavesAfterTheHandlerWroteGetsNoAnswerKeptForAnUndoneWrite() throws Exception {
    String orderNo = UUID.randomUUID().toString();
    CompletableFuture<Void> release = new CompletableFuture<>();
    ledger.holdAfterWrite.put(orderNo, release);

    // the handler has written its row when the client goes away: the rollback undoes it, so the
    // answer the handler would give ("placed #1") must never be kept for the retry
    leaveMidHandler(orderNo, () -> ledger.wrote.contains(orderNo), release);

    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> post("/placed/", orderNo, false).statusCode() != 409);
    HttpResponse<String> again = post("/placed/", orderNo, false);
    assertThat(again.body()).isEqualTo("placed #2");
    assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(ledger.rows(orderNo)).isEqualTo(1);
  }

  // sends the order's request on a raw connection and closes it once {@code reached} holds; the
  // handler, waiting on {@code waiting}, is then cancelled with the transaction (its wait with it)
  private void leaveMidHandler(
      String orderNo, Callable<Boolean> reached, CompletableFuture<Void> waiting) throws Exception {
    try (Socket client = new Socket("127.0.0.1", port)) {
      client
          .getOutputStream()
          .write(
              ("POST /placed/"
                      + orderNo
                      + " HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: "
                      + orderNo
                      + "\r\nContent-Length: 0\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      client.getOutputStream().flush();
      await().atMost(Duration.ofSeconds(10)).until(reached);
    }
    await().atMost(Duration.ofSeconds(10)).until(waiting::isCancelled);
  }

  @SpringBootConfiguration
  // Spring Data Redis is on the test class path; this application keeps its records in memory.
  @EnableAutoConfiguration(
      excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
  @Import(Ledger.class)
  static class App {
    @Bean
    ConnectionFactory connectionFactory() {
      ConnectionFactory h2 = H2ConnectionFactory.inMemory("tx_flux_" + UUID.randomUUID());
      DatabaseClient.create(h2)
          .sql("CREATE TABLE ledger (order_no VARCHAR(100) NOT NULL)")
          .then()
          .block();
      return h2;
    }

    @Bean
    R2dbcTransactionManager reactiveTransactionManager(ConnectionFactory connectionFactory) {
      return new R2dbcTransactionManager(connectionFactory);
    }

    @Bean
    TransactionAround transactionAround(R2dbcTransactionManager transactions) {
      return new TransactionAround(TransactionalOperator.create(transactions));
    }
  }

  /** Runs the rest of the chain, the Idempotency-Key filter included, in one transaction. */
  static final class TransactionAround implements WebFilter, Ordered {
    private final TransactionalOperator transactions;

    TransactionAround(TransactionalOperator transactions) {
      this.transactions = transactions;
    }

    @Override
    public int getOrder() {
      return IdempotencyWebFilter.ORDER - 1;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
      // a header of the application's own, set before the handler: every answer keeps it
      exchange.getResponse().getHeaders().set("X-Outer", "kept");
      boolean rollBack =
          Boolean.parseBoolean(exchange.getRequest().getHeaders().getFirst(ROLL_BACK));
      return transactions
          .execute(
              status ->
                  chain
                      .filter(exchange)
                      .then(
                          Mono.fromRunnable(
                              () -> {
                                if (rollBack) {
                                  status.setRollbackOnly();
                                }
                              })))
          .then();
    }
  }

  @RestController
  static class Ledger implements TransactionAroundTheFilterContract.Ledger {
    final AtomicInteger runs = new AtomicInteger();
    final Set<String> failCommitOf = ConcurrentHashMap.newKeySet();
    final Map<String, AtomicInteger> placed = new ConcurrentHashMap<>();
    // orders whose first run waits, once started, until the future completes
    final Map<String, CompletableFuture<Void>> holdUntil = new ConcurrentHashMap<>();
    final Set<String> started = ConcurrentHashMap.newKeySet();
    // orders whose first run waits, once its row is written, until the future completes
    final Map<String, CompletableFuture<Void>> holdAfterWrite = new ConcurrentHashMap<>();
    final Set<String> wrote = ConcurrentHashMap.newKeySet();
    private final DatabaseClient database;

    Ledger(ConnectionFactory connectionFactory) {
      this.database = DatabaseClient.create(connectionFactory);
    }

    @Override
    public int runs() {
      return runs.get();
    }

    @Override
    public void failCommitOf(String orderNo) {
      failCommitOf.add(orderNo);
    }

    @Override
    public int rows(String orderNo) {
      Long rows =
          database
              .sql("SELECT COUNT(*) AS n FROM ledger WHERE order_no = :order")
              .bind("order", orderNo)
              .map(row -> row.get("n", Long.class))
              .one()
              .block();
      return rows == null ? -1 : rows.intValue();
    }

    /**
     * Writes its row and answers 201; for an order in {@link #failCommitOf}, the first time, the
     * transaction's commit then fails.
     */
    @Idempotent
    @PostMapping("/placed/{orderNo}")
    Mono<ResponseEntity<String>> place(@PathVariable("orderNo") String orderNo) {
      int run = placed.computeIfAbsent(orderNo, o -> new AtomicInteger()).incrementAndGet();
      Mono<Void> refuseCommit =
          failCommitOf.remove(orderNo)
              ? TransactionSynchronizationManager.forCurrentTransaction()
                  .doOnNext(
                      tx ->
                          tx.registerSynchronization(
                              new TransactionSynchronization() {
                                @Override
                                public Mono<Void> beforeCommit(boolean readOnly) {
                                  return Mono.error(new IllegalStateException("refused at commit"));
                                }
                              }))
                  .then()
              : Mono.empty();
      started.add(orderNo);
      CompletableFuture<Void> hold = holdUntil.remove(orderNo);
      Mono<Void> waited = hold == null ? Mono.empty() : Mono.fromFuture(hold);
      CompletableFuture<Void> holdAfter = holdAfterWrite.remove(orderNo);
      Mono<Void> waitedAfter =
          holdAfter == null
              ? Mono.empty()
              : Mono.fromRunnable(() -> wrote.add(orderNo)).then(Mono.fromFuture(holdAfter));
      return waited
          .then(insert(orderNo))
          .then(waitedAfter)
          .then(refuseCommit)
          .then(
              Mono.just(
                  ResponseEntity.status(201)
                      .header("Location", "/placed/" + orderNo + "/" + run)
                      .body("placed #" + run)));
    }

    @Idempotent
    @PostMapping("/large/{orderNo}")
    Mono<ResponseEntity<String>> large(@PathVariable("orderNo") String orderNo) {
      int run =
          placed.computeIfAbsent("large " + orderNo, o -> new AtomicInteger()).incrementAndGet();
      String answer = "large #" + run + " ";
      return insert(orderNo)
          .then(
              Mono.just(
                  ResponseEntity.status(201)
                      .body(
                          answer
                              + "x"
                                  .repeat(
                                      TransactionAroundTheFilterContract.LARGE_ANSWER_BYTES
                                          - answer.length()))));
    }

    @Idempotent
    @PostMapping("/ledger/{orderNo}")
    Mono<ResponseEntity<String>> write(@PathVariable("orderNo") String orderNo) {
      runs.incrementAndGet();
      return insert(orderNo)
          .then(
              Mono.fromSupplier(
                  () ->
                      ResponseEntity.status(500)
                          .body("the gateway failed after the write #" + runs.get())));
    }

    private Mono<Void> insert(String orderNo) {
      return database
          .sql("INSERT INTO ledger (order_no) VALUES (:order)")
          .bind("order", orderNo)
          .then();
    }
  }
}
