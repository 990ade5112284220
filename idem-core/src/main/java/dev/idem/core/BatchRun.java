package dev.idem.core;

import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ForkJoinPool;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of a batch: their first claims sent together ({@link IdempotencyStore#claimAll}), each
 * call then run alone on the one call path ({@link Idempotency#run}) with the batch's answer as its
 * first round; and held outcomes completed together ({@link IdempotencyStore#completeAll}).
 */
final class BatchRun {

  // under the engine's name, where its other warnings are logged
  private static final Logger log = LoggerFactory.getLogger(Idempotency.class);

  private final Idempotency engine;
  private final IdempotencyStore store;

  BatchRun(Idempotency engine, IdempotencyStore store) {
    this.engine = engine;
    this.store = store;
  }

  /**
   * {@link Idempotency#executeEach}: the value of each call that returned, by key, in the map's
   * order.
   *
   * @param failed takes each call that throws an exception, and the batch goes on past it; null
   *     when the first call that throws ends the batch
   */
  <T extends @Nullable Object, E extends Exception> Map<IdempotencyKey, Executed<T>> executeEach(
      Map<IdempotencyKey, Fingerprint> calls,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config,
      Deferral deferral,
      @Nullable BiConsumer<IdempotencyKey, Exception> failed)
      throws E {
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(deferral, "deferral");
    if (failed != null && store.joinsCurrentTransaction()) {
      throw new IllegalStateException(
          "a batch that goes on past failures cannot run in a transaction the store writes in: a"
              + " failed call's claim would commit with the others; run it outside, or use the"
              + " JDBC inbox's receiveEach");
    }
    List<IdempotentCall<T>> each = new ArrayList<>(calls.size());
    calls.forEach(
        (key, fingerprint) ->
            each.add(
                new IdempotentCall<>(engine, key, fingerprint, null, codec, config, deferral)));
    List<ClaimRequest> requests = each.stream().map(IdempotentCall::request).toList();
    // in the caller's transaction each outcome is written with it, call by call, as alone
    Outcomes outcomes =
        !deferral.holds() && !store.joinsCurrentTransaction() ? new Outcomes(config) : null;
    long sentAt = System.nanoTime();
    List<@Nullable CompletableFuture<ClaimResult>> sent = new ArrayList<>(claimAll(requests));
    Map<IdempotencyKey, Executed<T>> done = new LinkedHashMap<>();
    int next = 0;
    try {
      for (; next < requests.size(); next++) {
        CompletableFuture<ClaimResult> answer = sent.get(next);
        if (answer != null && config.inProgressPolicy() == InProgressPolicy.WAIT) {
          waitsFreely(answer, sent, next);
        }
        ClaimLoop.@Nullable Sent first = answer == null ? null : new ClaimLoop.Sent(answer, sentAt);
        IdempotentCall<T> call = each.get(next);
        try {
          if (outcomes == null) {
            done.put(call.key(), engine.run(call, work, first));
            continue;
          }
          try {
            done.put(call.key(), engine.run(call.deferTo(outcomes::hold), work, first));
            outcomes.returned();
          } catch (Throwable failure) {
            outcomes.threw(failure);
            throw failure;
          }
        } catch (Exception e) {
          if (failed == null) {
            throw e;
          }
          failed.accept(call.key(), e);
        }
      }
    } finally {
      // the call that threw settled its own claim; those after it never ran, and are free for a
      // retry by the time this call ends
      List<CompletableFuture<@Nullable Void>> givenBack = new ArrayList<>();
      for (int i = next + 1; i < sent.size(); i++) {
        CompletableFuture<ClaimResult> taken = sent.get(i);
        if (taken != null) {
          givenBack.add(giveBack(store, taken));
        }
      }
      CompletableFuture.allOf(givenBack.toArray(CompletableFuture[]::new)).join();
      if (outcomes != null) {
        outcomes.settled(done.size() == requests.size(), failed);
      }
    }
    return done;
  }

  /**
   * Gives back what {@code sent} claimed, when it took the key. The stage ends once the store
   * answered the give-back (or failed to: the claim then ends with its lease), and never fails.
   */
  static CompletableFuture<@Nullable Void> giveBack(
      IdempotencyStore store, CompletableFuture<ClaimResult> sent) {
    if (!sent.isDone()) {
      // the release is sent from a pool thread, never from the thread that ends the claim's
      // stage, which may be the store client's own
      return sent.handleAsync((result, failure) -> result, ForkJoinPool.commonPool())
          .thenCompose(result -> giveBack(store, sent));
    }
    ClaimResult result = sent.isCompletedExceptionally() ? null : sent.join();
    if (!(result instanceof ClaimResult.Claimed claimed)) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Boolean> released;
    try {
      released = store.release(claimed.lease());
    } catch (RuntimeException e) {
      released = CompletableFuture.failedFuture(e);
    }
    return released.handle(
        (done, failure) -> {
          if (failure != null) {
            log.warn(
                "could not give back the claim of {}; it ends with its lease",
                claimed.lease().key(),
                failure);
          }
          return null;
        });
  }

  // A call about to wait for a key in progress elsewhere first gives back the keys the batch
  // claimed ahead for its later calls, which claim them again when they come: another batch
  // waiting for one of those while holding this key would otherwise wait for this one.
  private void waitsFreely(
      CompletableFuture<ClaimResult> answer,
      List<@Nullable CompletableFuture<ClaimResult>> sent,
      int at) {
    if (!(answer.handle((result, failure) -> result).join() instanceof ClaimResult.InProgress)) {
      return;
    }
    List<CompletableFuture<@Nullable Void>> givenBack = new ArrayList<>();
    for (int i = at + 1; i < sent.size(); i++) {
      CompletableFuture<ClaimResult> taken = sent.get(i);
      if (taken != null) {
        givenBack.add(giveBack(store, taken));
        sent.set(i, null);
      }
    }
    CompletableFuture.allOf(givenBack.toArray(CompletableFuture[]::new)).join();
  }

  // One stage per request, whatever the store does wrong: a store that throws, or answers with
  // fewer stages, fails the claims it did not answer.
  private List<CompletableFuture<ClaimResult>> claimAll(List<ClaimRequest> requests) {
    List<CompletableFuture<ClaimResult>> sent;
    try {
      sent = store.claimAll(requests);
    } catch (RuntimeException e) {
      return requests.stream().map(r -> CompletableFuture.<ClaimResult>failedFuture(e)).toList();
    }
    if (sent.size() == requests.size()) {
      return sent;
    }
    sent.forEach(stage -> giveBack(store, stage));
    IdempotencyStoreException wrong =
        new IdempotencyStoreException(
            "the store answered " + sent.size() + " claims for " + requests.size());
    return requests.stream().map(r -> CompletableFuture.<ClaimResult>failedFuture(wrong)).toList();
  }

  /**
   * {@link PendingOutcome#completeAll}: the outcomes the engine held settled at once, their store
   * calls sent together, each one's first attempt the batch's answer; another's completed alone.
   */
  static List<Boolean> completeAll(
      @Nullable IdempotencyStore store, List<? extends PendingOutcome> outcomes) {
    CallerRuns here = new CallerRuns();
    List<CompletableFuture<Boolean>> stages = new ArrayList<>(outcomes.size());
    List<Ownership.Held> settled = new ArrayList<>();
    List<CompletableFuture<Boolean>> settledStages = new ArrayList<>();
    List<IdempotencyStore.Completion> completions = new ArrayList<>();
    for (PendingOutcome outcome : outcomes) {
      try {
        if (outcome instanceof Ownership.Held held && held.store() == store) {
          IdempotencyStore.Completion completion = held.settleInBatch();
          if (completion != null) {
            completions.add(completion);
          }
          CompletableFuture<Boolean> stage = new CompletableFuture<>();
          settled.add(held);
          settledStages.add(stage);
          stages.add(stage);
        } else {
          stages.add(CompletableFuture.completedFuture(outcome.complete()));
        }
      } catch (RuntimeException | Error e) {
        stages.add(CompletableFuture.failedFuture(e));
      }
    }
    List<CompletableFuture<Boolean>> sent =
        completions.isEmpty() ? List.of() : sendAll(Objects.requireNonNull(store), completions);
    int next = 0;
    for (int i = 0; i < settled.size(); i++) {
      Ownership.Held held = settled.get(i);
      CompletableFuture<Boolean> stage = settledStages.get(i);
      CompletableFuture<Boolean> first = held.hasOutcome() ? sent.get(next++) : null;
      held.finish(here, first)
          .whenComplete(
              (value, failure) -> {
                if (failure != null) {
                  stage.completeExceptionally(failure);
                } else {
                  stage.complete(value);
                }
              });
    }
    here.join(
        CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new))
            .handle((all, failure) -> null));
    List<Boolean> stored = new ArrayList<>(stages.size());
    for (CompletableFuture<Boolean> stage : stages) {
      try {
        stored.add(stage.join());
      } catch (CompletionException | CancellationException e) {
        throw CallerRuns.rethrown(Settlement.unwrap(e));
      }
    }
    return stored;
  }

  // One stage per completion, whatever the store does wrong; a failed stage is a first attempt
  // that failed, which the settlement tries again.
  private static List<CompletableFuture<Boolean>> sendAll(
      IdempotencyStore store, List<IdempotencyStore.Completion> completions) {
    if (completions.isEmpty()) {
      return List.of();
    }
    try {
      List<CompletableFuture<Boolean>> sent = store.completeAll(completions);
      if (sent.size() == completions.size()) {
        return sent;
      }
      IdempotencyStoreException wrong =
          new IdempotencyStoreException(
              "the store answered " + sent.size() + " completions for " + completions.size());
      return completions.stream().map(c -> CompletableFuture.<Boolean>failedFuture(wrong)).toList();
    } catch (RuntimeException e) {
      return completions.stream().map(c -> CompletableFuture.<Boolean>failedFuture(e)).toList();
    }
  }

  /**
   * The outcomes of a batch without a deferral: each held as its work ends and its store call sent
   * at once, on an executor of the caller's that runs what follows the store's answers when the
   * batch waits for them all, at its end.
   */
  private static final class Outcomes {
    private final IdempotencyConfig config;
    private final CallerRuns settling = new CallerRuns();
    private final List<CompletableFuture<Boolean>> stored = new ArrayList<>();
    private final List<IdempotencyKey> keys = new ArrayList<>();
    private final Set<IdempotencyKey> threw = new HashSet<>();
    private Ownership.@Nullable Held held;

    Outcomes(IdempotencyConfig config) {
      this.config = config;
    }

    void hold(PendingOutcome outcome) {
      held = (Ownership.Held) outcome;
    }

    // The call returned: its outcome's store call goes now (a replay held nothing), and what
    // followed the earlier ones' answers runs (a failed attempt's retry, before its lease ends).
    void returned() {
      Ownership.Held outcome = held;
      held = null;
      if (outcome != null) {
        keys.add(outcome.key());
        stored.add(outcome.completing(settling));
      }
      settling.runHandedOver();
    }

    // The call threw: its failure is settled as a single call settles it, kept when terminal.
    void threw(Throwable failure) {
      Ownership.Held outcome = held;
      held = null;
      if (outcome != null) {
        keys.add(outcome.key());
        threw.add(outcome.key());
        stored.add(
            Ownership.isTerminal(config, failure)
                ? outcome.completing(settling)
                : outcome.releasing(settling).thenApply(released -> true));
      }
    }

    /**
     * Waits for every store call sent.
     *
     * @param whole true when every call ran: a value whose lease was lost is then thrown
     * @param failed takes such a loss, key by key, instead of its being thrown (a call that threw
     *     was told once, with what it threw, as a single call's failure is); or null
     */
    void settled(boolean whole, @Nullable BiConsumer<IdempotencyKey, Exception> failed) {
      settling.join(
          CompletableFuture.allOf(stored.toArray(CompletableFuture[]::new))
              .handle((all, failure) -> null));
      for (int i = 0; i < stored.size(); i++) {
        boolean kept = stored.get(i).handle((value, failure) -> failure == null && value).join();
        if ((whole || failed != null) && !kept && !threw.contains(keys.get(i))) {
          LeaseLostException lost =
              new LeaseLostException(
                  "the lease on "
                      + keys.get(i)
                      + " was taken over, or its store failed, before the result could be stored");
          if (failed == null) {
            throw lost;
          }
          failed.accept(keys.get(i), lost);
        }
      }
    }
  }
}
