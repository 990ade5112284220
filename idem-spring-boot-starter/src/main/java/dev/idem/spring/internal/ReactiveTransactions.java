package dev.idem.spring.internal;

import dev.idem.core.Deferral;
import dev.idem.core.PendingOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A reactive Spring transaction around the WebFlux filter (an application's {@code WebFilter} that
 * runs the chain in a {@code TransactionalOperator}): it decides the outcome, as a thread-bound one
 * does on Spring MVC ({@link TransactionOutcomes#settle}), and the held answer goes out after that.
 * One synchronization, registered while the call begins, runs what was asked of the transaction's
 * end in the order it was asked, each outcome settled before the answer that follows it. Unlike a
 * thread-bound one, a reactive transaction can end while the work still runs (a client that went
 * away cancels it, and it rolls back): what is handed over after its end is settled at once by how
 * it ended. Loaded only when spring-tx is on the class path.
 */
public final class ReactiveTransactions implements TransactionSynchronization {

  private static final Logger log = LoggerFactory.getLogger(ReactiveTransactions.class);

  private final Scheduler storeCalls;
  private final List<IntFunction<Mono<Void>>> atEnd = new ArrayList<>();
  // how the transaction ended, once it has; guarded by this
  private @Nullable Integer ended;

  private ReactiveTransactions(Executor calls) {
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
        .map(
            tx -> {
              ReactiveTransactions transaction = new ReactiveTransactions(storeCalls);
              tx.registerSynchronization(transaction);
              return Optional.of(transaction);
            })
        .onErrorResume(NoTransactionException.class, e -> Mono.empty())
        .defaultIfEmpty(Optional.empty());
  }

  @Override
  public Mono<Void> afterCompletion(int status) {
    List<IntFunction<Mono<Void>>> actions;
    synchronized (this) {
      ended = status;
      actions = List.copyOf(atEnd);
      atEnd.clear();
    }
    return Flux.fromIterable(actions).concatMap(action -> action.apply(status)).then();
  }

  // false, with nothing queued, once the transaction has ended
  private synchronized boolean atEnd(IntFunction<Mono<Void>> action) {
    if (ended != null) {
      return false;
    }
    atEnd.add(action);
    return true;
  }

  private synchronized int endedAs() {
    return Objects.requireNonNull(ended, "the transaction has not ended");
  }

  /**
   * Where to hand the outcome: each held outcome is settled when the transaction ends, its store
   * call made on the store's threads, never on an event loop. One handed over after the end is
   * settled at once by how it ended: the caller stops work whose transaction ended under it (see
   * {@code IdempotencyWebFilter}), so that nothing it does runs outside the transaction.
   */
  public Deferral deferral() {
    return new Deferral() {
      @Override
      public void hold(PendingOutcome pending) {
        if (!atEnd(status -> settled(pending, status))) {
          int status = endedAs();
          log.warn(
              "the transaction around {} ended ({}) before its work did; the outcome follows it",
              pending.key(),
              status == STATUS_COMMITTED ? "committed" : "rolled back or unknown");
          settled(pending, status).subscribe();
        }
      }

      @Override
      public boolean holdsFromAnyThread() {
        return true;
      }
    };
  }

  private Mono<Void> settled(PendingOutcome pending, int status) {
    AtomicBoolean ran = new AtomicBoolean();
    Mono<Void> settle =
        Mono.fromRunnable(
            () -> {
              ran.set(true);
              TransactionOutcomes.settle(pending, status);
            });
    // the store's threads may refuse a call when they are full; a settlement must not be dropped
    // (a held key would be renewed for ever), so it waits on Reactor's threads for blocking work
    // instead, and only if they refuse too is the key kept until its lease ends, as after a crash
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

  // a call the threads refused before the settlement ran, not one it made and that was refused
  private static boolean refusedBefore(Throwable e, AtomicBoolean ran) {
    return e instanceof RejectedExecutionException && !ran.get();
  }

  /**
   * Sends {@code committed} once the transaction has committed, {@code rolledBack} once it has
   * rolled back, and runs {@code unknown} when its end is unknown, each after the outcomes held
   * before it are settled. A client that left meanwhile is told nothing.
   *
   * @return false, with nothing registered, when the transaction has already ended
   */
  public boolean whenEnded(
      Supplier<Mono<Void>> committed, Supplier<Mono<Void>> rolledBack, Runnable unknown) {
    return atEnd(
        status -> {
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
        });
  }
}
