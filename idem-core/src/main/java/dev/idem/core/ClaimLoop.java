package dev.idem.core;

import dev.idem.core.internal.DuplicateWaiter;
import dev.idem.core.internal.LogThrottle;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim of every call, blocking or not, in rounds: the store's answer, a claim answered late,
 * waiting for a duplicate under WAIT, and the store failing at claim (closed, or open).
 *
 * <p>Just over 400 lines because every claim is decided here, the first round of a batch's call
 * (whose claim was sent with the others) included.
 */
final class ClaimLoop {

  // under the engine's name, where the fail-open warning has always been logged
  private static final Logger log = LoggerFactory.getLogger(Idempotency.class);

  private final IdempotencyStore store;
  private final DuplicateWaiter waiter;
  private final BiConsumer<IdempotencyKey, ExecutionOutcome> report;
  private final LogThrottle refusals = new LogThrottle();

  ClaimLoop(
      IdempotencyStore store,
      DuplicateWaiter waiter,
      BiConsumer<IdempotencyKey, ExecutionOutcome> report) {
    this.store = store;
    this.waiter = waiter;
    this.report = report;
  }

  /**
   * Claims the key; under WAIT, a claim that finds the key in progress waits to be woken and claims
   * again, until the config's limit. The one claim of every call, blocking or not: each round runs
   * as a task on {@code storeCalls}, and a duplicate under WAIT waits for its wake-up (or its time
   * slice) without holding a thread, so any number of duplicates can wait without starving the
   * store's other calls. A blocking call hands a {@link CallerRuns}, whose tasks run on its own
   * thread. {@code then} runs in the last round's task with the store's answer, null when the store
   * failed and the config fails open; the returned stage ends as the one it returns, or with the
   * claim's failure ({@link IdempotencyStoreException} when the store failed and the config fails
   * closed, {@link RequestInProgressException} for a duplicate in flight).
   *
   * @param observe called when the claim is decided, on the thread that decides it; the end it
   *     returns runs on the same thread once the decision is made
   * @param stop ends a wait for a duplicate: once it is done, a claim that finds the key in
   *     progress is refused instead of waiting again (an interrupted blocking caller)
   */
  <R> CompletableFuture<R> claim(
      ClaimRequest request,
      IdempotencyConfig config,
      Executor storeCalls,
      Supplier<Runnable> observe,
      CompletableFuture<@Nullable Void> stop,
      Function<@Nullable ClaimResult, CompletableFuture<R>> then) {
    Round<R> rounds = new Round<>(request, config, storeCalls, observe, stop, then);
    // the first claim leaves from a store thread even when the store answers later: sending may
    // still wait on the client's connection lock, which an event loop must not
    rounds.submit(0);
    return rounds.answer;
  }

  /**
   * A first claim sent ahead of its call, with others ({@link IdempotencyStore#claimAll}).
   *
   * @param answer the store's answer to it
   * @param at when it was sent ({@link System#nanoTime})
   */
  record Sent(CompletableFuture<ClaimResult> answer, long at) {}

  /**
   * As {@link #claim(ClaimRequest, IdempotencyConfig, Executor, Supplier, CompletableFuture,
   * Function)}, whose first round is the claim {@code first} sent ahead: its answer is decided as
   * the first round's would be, except that a claim held a tenth of its lease or more before its
   * call came is renewed first (claimed afresh when the store no longer has it for its owner), and,
   * under WAIT, a key found in progress is claimed again by a round that can wait for it. A claim
   * taken and left undecided (the call refused before it ran) is given back.
   */
  <R> CompletableFuture<R> claim(
      Sent first,
      ClaimRequest request,
      IdempotencyConfig config,
      Executor storeCalls,
      CompletableFuture<@Nullable Void> stop,
      Function<@Nullable ClaimResult, CompletableFuture<R>> then) {
    Round<R> rounds = new Round<>(request, config, storeCalls, () -> () -> {}, stop, then);
    rounds.submitFirst(first);
    return rounds.answer;
  }

  /** The rounds of one asynchronous claim. */
  private final class Round<R> {
    private final ClaimRequest request;
    private final IdempotencyConfig config;
    private final Executor storeCalls;
    private final Supplier<Runnable> observe;
    private final CompletableFuture<@Nullable Void> stop;
    private final Function<@Nullable ClaimResult, CompletableFuture<R>> then;
    private final CompletableFuture<R> answer;
    private final long deadline;

    Round(
        ClaimRequest request,
        IdempotencyConfig config,
        Executor storeCalls,
        Supplier<Runnable> observe,
        CompletableFuture<@Nullable Void> stop,
        Function<@Nullable ClaimResult, CompletableFuture<R>> then) {
      this.request = request;
      this.config = config;
      this.storeCalls = storeCalls;
      this.observe = observe;
      this.stop = stop;
      this.then = then;
      this.answer = new CompletableFuture<>();
      this.deadline = System.nanoTime() + config.maxWait().toNanos();
    }

    void submitFirst(Sent first) {
      try {
        storeCalls.execute(() -> first(first));
      } catch (RuntimeException | Error e) {
        BatchRun.giveBack(store, first.answer());
        answer.completeExceptionally(wrapped(e));
      }
    }

    // On a storeCalls thread, as every round.
    private void first(Sent first) {
      CompletableFuture<ClaimResult> sent = first.answer();
      if (sent.isDone()) {
        takeFirst(first);
        return;
      }
      sent.whenComplete(
          (result, failure) -> {
            try {
              Settlement.handOver(() -> takeFirst(first), storeCalls, "decide a claim's answer");
            } catch (RuntimeException | Error e) {
              BatchRun.giveBack(store, sent);
              answer.completeExceptionally(wrapped(e));
            }
          });
    }

    private void takeFirst(Sent first) {
      try {
        CompletableFuture<ClaimResult> sent = first.answer();
        ClaimResult result = sent.isCompletedExceptionally() ? null : sent.join();
        if (result instanceof ClaimResult.InProgress && waits()) {
          run(0); // a round that subscribes before it claims, so that no wake-up is missed
        } else if (result instanceof ClaimResult.Claimed claimed
            && System.nanoTime() - first.at() > request.lease().toNanos() / 10) {
          renewed(claimed.lease());
        } else {
          decide(0, null, sent, first.at());
        }
      } catch (RuntimeException | Error e) {
        BatchRun.giveBack(store, first.answer());
        answer.completeExceptionally(wrapped(e));
      }
    }

    // A claim held while the calls before it ran: renewed before it runs, since its watchdog counts
    // a whole lease from its start; one the store no longer has for its owner is claimed afresh.
    // On the blocking caller's thread, where a blocking store call may wait.
    private void renewed(Lease lease) {
      Optional<Lease> renewed;
      try {
        renewed = store.renew(lease, request.lease());
      } catch (RuntimeException e) {
        BatchRun.giveBack(store, CompletableFuture.completedFuture(new ClaimResult.Claimed(lease)))
            .whenComplete((released, failure) -> submit(0));
        return;
      }
      if (renewed.isEmpty()) {
        run(0);
        return;
      }
      decide(
          0,
          null,
          CompletableFuture.completedFuture(new ClaimResult.Claimed(renewed.get())),
          System.nanoTime());
    }

    void submit(int round) {
      try {
        storeCalls.execute(() -> run(round));
      } catch (RejectedExecutionException e) {
        // a woken duplicate finds the store's threads full: it is refused as in progress (409
        // with Retry-After), as it would be without waiting; a first claim is refused as it is
        answer.completeExceptionally(round == 0 ? e : wrapped(inProgress(request, config)));
      } catch (RuntimeException | Error e) {
        answer.completeExceptionally(wrapped(e));
      }
    }

    // On a storeCalls thread. A store that answers later lets the thread go while its claim is
    // on the wire; its answer comes back on the store's client thread and is decided on a
    // storeCalls thread again, since deciding may start the work.
    private void run(int round) {
      DuplicateWaiter.@Nullable Ticket ticket = null;
      try {
        ticket = waits() ? waiter.subscribe(request.key(), config.lease()) : null;
        CompletableFuture<ClaimResult> sent;
        long sentAt = System.nanoTime();
        try {
          sent = store.claim(request);
        } catch (RuntimeException e) {
          sent = CompletableFuture.failedFuture(e);
        }
        if (sent.isDone()) {
          decide(round, ticket, sent, sentAt);
        } else {
          DuplicateWaiter.Ticket held = ticket;
          CompletableFuture<ClaimResult> answered = sent;
          sent.whenComplete((result, failure) -> resume(round, held, answered, sentAt));
        }
      } catch (RuntimeException | Error e) {
        close(ticket);
        answer.completeExceptionally(wrapped(e));
      }
    }

    private void resume(
        int round,
        DuplicateWaiter.@Nullable Ticket ticket,
        CompletableFuture<ClaimResult> sent,
        long sentAt) {
      // a claim made must be decided, or the key stays taken by nobody until its lease ends
      try {
        Settlement.handOver(
            () -> decide(round, ticket, sent, sentAt), storeCalls, "decide a claim's answer");
      } catch (RuntimeException | Error e) {
        close(ticket);
        answer.completeExceptionally(wrapped(e));
      }
    }

    /**
     * Decides on the store's answer: waits for another round, or ends the claim. The decision that
     * ends it is observed: listeners hear its outcome within.
     */
    private void decide(
        int round,
        DuplicateWaiter.@Nullable Ticket ticket,
        CompletableFuture<ClaimResult> sent,
        long sentAt) {
      Runnable end = null;
      try {
        ClaimResult result = null;
        RuntimeException failed = null;
        try {
          result = inTime(request, sent.join(), sentAt);
        } catch (CompletionException | CancellationException e) {
          failed = Settlement.runtime(e);
        } catch (IdempotencyStoreException e) {
          failed = e;
        }
        long remaining = deadline - System.nanoTime();
        if (failed == null
            && result instanceof ClaimResult.InProgress
            && ticket != null
            && remaining > 0
            && !stop.isDone()) {
          ticket
              .next(remaining, round)
              .applyToEither(stop, woken -> woken)
              .whenComplete((woken, never) -> nextRound(ticket, round));
          return;
        }
        close(ticket);
        end = observe.get();
        if (failed != null) {
          if (failed instanceof IdempotencyException
              && !(failed instanceof IdempotencyStoreException)) {
            if (failed instanceof StoreFullException) {
              report.accept(request.key(), ExecutionOutcome.STORE_FULL);
            }
            throw failed;
          }
          storeFailedAtClaim(request, config, failed);
        }
        then.apply(result)
            .whenComplete(
                (value, failure) -> {
                  if (failure != null) {
                    // the run's failure as it ended, wrapped once even when it is a
                    // CompletionException of the work's own, so whoever unwraps gets it back
                    answer.completeExceptionally(new CompletionException(failure));
                  } else {
                    answer.complete(value);
                  }
                });
      } catch (RuntimeException | Error e) {
        close(ticket);
        answer.completeExceptionally(wrapped(e));
      } finally {
        if (end != null) {
          end.run();
        }
      }
    }

    private void nextRound(DuplicateWaiter.Ticket ticket, int round) {
      try {
        ticket.close();
      } finally {
        if (stop.isDone()) {
          answer.completeExceptionally(wrapped(inProgress(request, config)));
        } else {
          submit(round + 1);
        }
      }
    }

    private boolean waits() {
      return config.inProgressPolicy() == InProgressPolicy.WAIT;
    }
  }

  /**
   * The store's answer to a claim sent at {@code sent} ({@link System#nanoTime}), unless it was a
   * claim that came back after more than half its lease: the lease ran while the answer was on its
   * way (a stalled store, a slow network, a client that waits longer than the lease), so another
   * claimant may already have taken the key over. Such a claim is given back and fails as the store
   * failing would, never run on a lease that may have ended, whatever the store's or its client's
   * timeouts; under fail open too, since the key was taken.
   *
   * @throws IdempotencyStoreException for a claim answered late
   */
  private ClaimResult inTime(ClaimRequest request, ClaimResult result, long sent) {
    long took = System.nanoTime() - sent;
    if (!(result instanceof ClaimResult.Claimed claimed) || took <= request.lease().toNanos() / 2) {
      return result;
    }
    IdempotencyStoreException late =
        new LateClaimException(
            "the store answered the claim of "
                + request.key()
                + " after "
                + java.time.Duration.ofNanos(took).toMillis()
                + " ms, more than half its lease of "
                + request.lease().toMillis()
                + " ms; it was given back rather than run on a lease that may have ended");
    // not waited for: a release that fails leaves a lease that ends by itself
    try {
      store
          .release(claimed.lease())
          .whenComplete(
              (released, failure) -> {
                if (failure != null) {
                  log.warn("could not give back the late claim of {}", request.key(), failure);
                }
              });
    } catch (RuntimeException e) {
      late.addSuppressed(e);
    }
    throw late;
  }

  /**
   * A claim answered late, refused whatever the config says about a failing store: the key was
   * taken, and running the work unguarded beside a claimant that may have taken it over would run
   * it twice.
   */
  private static final class LateClaimException extends IdempotencyStoreException {
    LateClaimException(String message) {
      super(message);
    }
  }

  // as a dependent stage fails: the cause wrapped once
  private static Throwable wrapped(Throwable failure) {
    return failure instanceof CompletionException ? failure : new CompletionException(failure);
  }

  private static void close(DuplicateWaiter.@Nullable Ticket ticket) {
    if (ticket != null) {
      ticket.close();
    }
  }

  // One line per ten seconds at most, with how many refusals it stands for: a stalled store
  // refuses every request, and the meters count each one.
  private void logRefusal(ClaimRequest request, RuntimeException failure) {
    if (refusals.due()) {
      log.warn(
          "store failed at claim; {} refused (fail closed){}: {}",
          request.key(),
          refusals.skipped(),
          failure.toString());
    }
  }

  /** The refusal of a duplicate in flight, reported. */
  RequestInProgressException inProgress(ClaimRequest request, IdempotencyConfig config) {
    report.accept(request.key(), ExecutionOutcome.IN_PROGRESS);
    return new RequestInProgressException(request.key(), config.retryAfter());
  }

  /**
   * Reports a store that failed at claim; throws unless the config fails open (a late claim is
   * refused either way).
   */
  private void storeFailedAtClaim(
      ClaimRequest request, IdempotencyConfig config, RuntimeException failure) {
    report.accept(request.key(), ExecutionOutcome.STORE_ERROR);
    if (!config.failOpen() || failure instanceof LateClaimException) {
      logRefusal(request, failure);
      throw failure instanceof IdempotencyStoreException s
          ? s
          : new IdempotencyStoreException("idempotency store failed at claim", failure);
    }
    log.warn("store failed; running {} without deduplication (fail open)", request.key(), failure);
  }
}
