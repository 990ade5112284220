package dev.idem.spring.webflux.tx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.RecordState;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.ReactiveIdempotency;
import dev.idem.spring.internal.ReactiveTransactions;
import io.r2dbc.h2.H2ConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Mono;

/**
 * The outcome held for a reactive transaction around the filter is settled when it ends, even when
 * the store's threads refuse the call then (full): a settlement dropped there would leave the key
 * renewed for ever, or, kept until its lease ends, let a retry run a committed effect again. A call
 * of {@link ReactiveIdempotency} inside a transaction is not held by it: its effect may be outside
 * the database, and a rollback of the caller must not make a retry run it again.
 */
class ReactiveTransactionsTest {

  private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
  private final Idempotency engine = Idempotency.builder(store).build();
  private final ConnectionFactory h2 = H2ConnectionFactory.inMemory("tx_" + UUID.randomUUID());
  private final TransactionalOperator transactions =
      TransactionalOperator.create(new R2dbcTransactionManager(h2));

  @AfterEach
  void close() {
    engine.close();
  }

  @Test
  void anOutcomeIsStoredAfterTheCommitEvenWhenTheStoreThreadsRefuseTheCall() {
    IdempotencyKey key = IdempotencyKey.of("orders", UUID.randomUUID().toString());

    run(key, refusing()).as(transactions::transactional).block();

    assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @Test
  void aKeyIsFreedAfterTheRollbackEvenWhenTheStoreThreadsRefuseTheCall() {
    IdempotencyKey key = IdempotencyKey.of("orders", UUID.randomUUID().toString());

    transactions
        .execute(status -> run(key, refusing()).doOnSuccess(answer -> status.setRollbackOnly()))
        .then()
        .block();

    assertThat(store.find(key)).isEmpty();
  }

  @Test
  void aReactiveCallInsideATransactionIsStoredWhenItsWorkEndsSoARollbackNeverRunsItAgain() {
    ReactiveIdempotency reactive =
        new ReactiveIdempotency(engine, Runnable::run, new InFlightWork());
    IdempotencyKey charge = IdempotencyKey.of("charges", UUID.randomUUID().toString());
    AtomicInteger charged = new AtomicInteger();

    // the charge (an effect outside the database) is not undone by the caller's rollback
    transactions
        .execute(
            status ->
                reactive
                    .executeWithStatus(
                        engine.call(charge, Fingerprint.NONE),
                        ctx -> Mono.fromSupplier(() -> "charged #" + charged.incrementAndGet()))
                    .doOnSuccess(answer -> status.setRollbackOnly()))
        .then()
        .block();
    Executed<String> retried =
        reactive
            .executeWithStatus(
                engine.call(charge, Fingerprint.NONE),
                ctx -> Mono.fromSupplier(() -> "charged #" + charged.incrementAndGet()))
            .block();

    assertThat(retried).isEqualTo(new Executed<>("charged #1", true));
    assertThat(charged).hasValue(1);
  }

  // one call whose outcome the transaction of the subscriber's context holds
  private Mono<String> run(IdempotencyKey key, Executor settlements) {
    return ReactiveTransactions.current(settlements)
        .map(Optional::orElseThrow)
        .flatMap(
            transaction ->
                Mono.fromFuture(
                    () ->
                        engine
                            .call(key, Fingerprint.NONE)
                            .deferTo(transaction.deferral())
                            .runAsync(
                                ctx -> CompletableFuture.completedFuture("placed"), Runnable::run)))
        .map(executed -> executed.value());
  }

  private static Executor refusing() {
    return task -> {
      throw new RejectedExecutionException("the store's threads are full");
    };
  }
}
