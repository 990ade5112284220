package dev.idem.spring.internal;

import dev.idem.core.Deferral;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A reactive Spring transaction around the WebFlux filter (an application's {@code WebFilter} that
 * runs the chain in a {@code TransactionalOperator}): it decides the outcome, as a thread-bound one
 * does around the Spring MVC filter. The outcome is settled when the transaction ends ({@link
 * TransactionOutcomes#settle}) and the held answer goes out after that. Loaded only when spring-tx
 * is on the class path.
 */
public final class ReactiveTransactions {

  private static final Logger log = LoggerFactory.getLogger(ReactiveTransactions.class);

  private final TransactionSynchronizationManager synchronizations;
  private final Scheduler storeCalls;

  private ReactiveTransactions(TransactionSynchronizationManager synchronizations, Executor calls) {
    this.synchronizations = synchronizations;
    this.storeCalls = Schedulers.fromExecutor(calls);
  }

  /**
   * The transaction of the subscriber's context when an actual one runs whose end synchronizations
   * are told; empty otherwise.
   *
   * @param storeCalls where the store's calls at the transaction's end are made
   */
  public static Mono<Optional<ReactiveTransactions>> current(Executor storeCalls) {
    return TransactionSynchronizationManager.forCurrentTransaction()
        .filter(tx -> tx.isSynchronizationActive() && tx.isActualTransactionActive())
        .map(tx -> Optional.of(new ReactiveTransactions(tx, storeCalls)))
        .onErrorResume(NoTransactionException.class, e -> Mono.empty())
        .defaultIfEmpty(Optional.empty());
  }

  /**
   * Where to hand the outcome: each held outcome is settled when the transaction ends, its store
   * call made on the store's threads, never on an event loop.
   */
  public Deferral deferral() {
    return pending ->
        synchronizations.registerSynchronization(
            new TransactionSynchronization() {
              @Override
              public Mono<Void> afterCompletion(int status) {
                AtomicBoolean ran = new AtomicBoolean();
                Mono<Void> settle =
                    Mono.fromRunnable(
                        () -> {
                          ran.set(true);
                          TransactionOutcomes.settle(pending, status);
                        });
                // the store's threads may refuse a call when they are full; a settlement must not
                // be dropped (a held key would be renewed for ever), so it waits on Reactor's
                // threads for blocking work instead, and only if they refuse too is the key kept
                // until its lease ends, as after a crash
                return settle
                    .subscribeOn(storeCalls)
                    .onErrorResume(
                        refused -> refusedBefore(refused, ran),
                        refused -> settle.subscribeOn(Schedulers.boundedElastic()))
                    .onErrorResume(
                        refused -> refusedBefore(refused, ran),
                        refused -> {
                          log.warn(
                              "{} could not be settled ({}); it stays taken until its lease ends",
                              pending.key(),
                              refused.toString());
                          pending.keep();
                          return Mono.empty();
                        });
              }
            });
  }

  // a call the threads refused before the settlement ran, not one it made and that was refused
  private static boolean refusedBefore(Throwable e, AtomicBoolean ran) {
    return e instanceof RejectedExecutionException && !ran.get();
  }

  /**
   * Sends {@code committed} once the transaction has committed, {@code rolledBack} once it has
   * rolled back, and runs {@code unknown} when its end is unknown. Registered after the outcome is
   * held, it runs after the outcome is settled. A client that left meanwhile is told nothing.
   */
  public void whenEnded(
      Supplier<Mono<Void>> committed, Supplier<Mono<Void>> rolledBack, Runnable unknown) {
    synchronizations.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public Mono<Void> afterCompletion(int status) {
            Mono<Void> sent =
                switch (status) {
                  case STATUS_COMMITTED -> Mono.defer(committed);
                  case STATUS_ROLLED_BACK -> Mono.defer(rolledBack);
                  default -> Mono.fromRunnable(unknown);
                };
            return sent.onErrorResume(
                e -> {
                  log.debug("the answer after the transaction could not be sent: {}", e.toString());
                  return Mono.empty();
                });
          }
        });
  }
}
