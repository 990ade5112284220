package dev.idem.testsupport;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Deferral;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.PendingOutcome;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.ResultCodec;
import dev.idem.core.StoreFullException;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.core.consumer.IdempotentConsumer.Delivery;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.IdempotencyStore.Completion;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Batches on a store: {@link dev.idem.core.store.IdempotencyStore#claimAll} answers each request as
 * a claim of it alone would, {@link dev.idem.core.store.IdempotencyStore#completeAll} stores each
 * outcome as its completion alone would, and {@link IdempotentConsumer#processAll} and {@link
 * IdempotentConsumer#processEach} handle each message once, by the single message's rules, however
 * the batch ends.
 *
 * <p>Over 400 lines because both batch calls are checked on one shared set-up, and every way a
 * batch can end (a failure, a terminal failure, a copy in flight under each policy, a slow handler,
 * a lost lease, a full scope, two racing consumers) is a test of its own, each on every store.
 */
public abstract class BatchContract extends StoreContractSupport {

  private final List<Idempotency> engines = new ArrayList<>();

  private IdempotentConsumer consumer(String group, IdempotencyConfig config) {
    Idempotency engine = Idempotency.builder(store()).build();
    engines.add(engine);
    return new IdempotentConsumer(engine, group, config);
  }

  private IdempotentConsumer consumer(String group) {
    return consumer(group, IdempotentConsumer.DEFAULT_CONFIG);
  }

  // A consumer of a group of its own that keeps answers an hour and stores the failures named.
  private IdempotentConsumer consumerWhoseTerminalFailures(Predicate<? super Throwable> terminal) {
    return consumer(
        "batch-" + UUID.randomUUID(),
        IdempotencyConfig.custom().retention(Duration.ofHours(1)).terminalWhen(terminal).build());
  }

  @AfterEach
  void closeEngines() {
    engines.forEach(Idempotency::close);
  }

  private static List<ClaimResult> answers(List<CompletableFuture<ClaimResult>> stages) {
    return stages.stream().map(Stages::now).toList();
  }

  @Test
  void aBatchOfFreshKeysIsClaimedKeyByKeyInOrder() {
    // more keys than one script carries, so that a batch in several parts keeps its order
    List<ClaimRequest> requests =
        IntStream.range(0, 300)
            .mapToObj(i -> ClaimRequest.of(newKey(), fingerprint("b" + i), longLease()))
            .toList();
    List<ClaimResult> answers = answers(store().claimAll(requests));
    assertThat(answers).hasSize(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      assertThat(answers.get(i)).isInstanceOf(ClaimResult.Claimed.class);
      Lease lease = ((ClaimResult.Claimed) answers.get(i)).lease();
      assertThat(lease.key()).isEqualTo(requests.get(i).key());
      assertThat(complete(lease, Outcome.success(bytes("r" + i)), longLease())).isTrue();
    }
    ClaimResult again = claim(requests.get(299));
    assertThat(again).isInstanceOf(ClaimResult.Completed.class);
    assertThat(outcomeOf(((ClaimResult.Completed) again).record()).payload())
        .isEqualTo(bytes("r299"));
  }

  @Test
  void eachRequestOfABatchIsAnsweredAsItsClaimAloneWouldBe() {
    IdempotencyKey done = newKey();
    complete(
        claimOrFail(done, fingerprint("a"), longLease()), Outcome.success(bytes("1")), longLease());
    IdempotencyKey reused = newKey();
    complete(
        claimOrFail(reused, fingerprint("a"), longLease()),
        Outcome.success(bytes("2")),
        longLease());
    IdempotencyKey running = newKey();
    Lease held = claimOrFail(running, fingerprint("a"), longLease());
    IdempotencyKey token = newKey();
    store().issue(token, longLease());
    IdempotencyKey noToken = newKey();
    IdempotencyKey fresh = newKey();
    List<ClaimRequest> requests =
        List.of(
            ClaimRequest.of(done, fingerprint("a"), longLease()),
            ClaimRequest.of(reused, fingerprint("other"), longLease()),
            ClaimRequest.of(running, fingerprint("a"), longLease()),
            new ClaimRequest(token, fingerprint("t"), longLease(), true),
            new ClaimRequest(noToken, fingerprint("t"), longLease(), true),
            ClaimRequest.of(fresh, fingerprint("a"), longLease()));

    List<ClaimResult> answers = answers(store().claimAll(requests));

    assertThat(answers.get(0)).isInstanceOf(ClaimResult.Completed.class);
    assertThat(answers.get(1)).isInstanceOf(ClaimResult.Mismatch.class);
    assertThat(answers.get(2)).isInstanceOf(ClaimResult.InProgress.class);
    assertThat(answers.get(3)).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(answers.get(4)).isInstanceOf(ClaimResult.UnknownToken.class);
    assertThat(answers.get(5)).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(store().find(noToken)).as("a refused token claim leaves nothing").isEmpty();
    assertThat(release(held)).as("the running key's owner was left alone").isTrue();
  }

  @Test
  void aKeyWhoseLeaseEndedIsTakenOverInABatchWithAGreaterFence() {
    IdempotencyKey stale = newKey();
    Lease old = claimOrFail(stale, fingerprint("a"), shortLease());
    IdempotencyKey reused = newKey();
    Lease reusedOld = claimOrFail(reused, fingerprint("a"), shortLease());
    passBeyond(shortLease());
    IdempotencyKey fresh = newKey();
    List<ClaimResult> answers =
        answers(
            store()
                .claimAll(
                    List.of(
                        ClaimRequest.of(stale, fingerprint("a"), longLease()),
                        ClaimRequest.of(fresh, fingerprint("a"), longLease()),
                        ClaimRequest.of(reused, fingerprint("b"), longLease()))));
    assertThat(answers.get(0)).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(((ClaimResult.Claimed) answers.get(0)).lease().fence()).isGreaterThan(old.fence());
    assertThat(answers.get(1)).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(answers.get(2))
        .as("a lease that ended does not free the key for another request")
        .isInstanceOf(ClaimResult.Mismatch.class);
    assertThat(complete(old, Outcome.success(bytes("late")), longLease()))
        .as("the owner whose lease ended can no longer store")
        .isFalse();
    assertThat(release(reusedOld)).as("nobody took the reused key over").isTrue();
  }

  @Test
  void completionsSentTogetherStoreEachAndALostLeaseAnswersFalseAlone() {
    IdempotencyKey first = newKey();
    Lease firstLease = claimOrFail(first, fingerprint("a"), longLease());
    IdempotencyKey lost = newKey();
    Lease lostLease = claimOrFail(lost, fingerprint("a"), shortLease());
    passBeyond(shortLease());
    Lease takenOver = claimOrFail(lost, fingerprint("a"), longLease());
    IdempotencyKey last = newKey();
    Lease lastLease = claimOrFail(last, fingerprint("a"), longLease());

    List<Boolean> stored =
        store()
            .completeAll(
                List.of(
                    new Completion(firstLease, Outcome.success(bytes("1")), longLease()),
                    new Completion(lostLease, Outcome.success(bytes("late")), longLease()),
                    new Completion(lastLease, Outcome.success(bytes("3")), longLease())))
            .stream()
            .map(Stages::now)
            .toList();

    assertThat(stored).containsExactly(true, false, true);
    assertThat(outcomeOf(store().find(first).orElseThrow()).payload()).isEqualTo(bytes("1"));
    assertThat(outcomeOf(store().find(last).orElseThrow()).payload()).isEqualTo(bytes("3"));
    assertThat(store().find(lost).orElseThrow().state())
        .as("the owner that took over still holds the key")
        .isEqualTo(RecordState.IN_PROGRESS);
    assertThat(complete(takenOver, Outcome.success(bytes("2")), longLease())).isTrue();
  }

  @Test
  void aCappedClaimThatFindsItsScopeFullFailsOnlyItsOwnStage() {
    IdempotencyKey first = newKey();
    claimCappedOrFail(first, 1);
    IdempotencyKey over = newKey();
    IdempotencyKey fresh = IdempotencyKey.of("batch-other-" + UUID.randomUUID(), "k");
    List<CompletableFuture<ClaimResult>> stages =
        store()
            .claimAll(
                List.of(capped(over, 1), ClaimRequest.of(fresh, fingerprint("a"), longLease())));
    assertThatThrownBy(() -> now(stages.get(0))).isInstanceOf(StoreFullException.class);
    assertThat(now(stages.get(1))).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(store().find(over)).isEmpty();
  }

  @Test
  void aBatchHandlesEachMessageOnceAndItsRepeatNone() {
    String group = "batch-" + UUID.randomUUID();
    List<String> ids = List.of("m1", "m2", "m1", "m3");
    List<Integer> handled = Collections.synchronizedList(new ArrayList<>());

    List<Delivery> first = consumer(group).processAll(ids, (index, ctx) -> handled.add(index));

    assertThat(handled).as("an id twice in one batch is one message").containsExactly(0, 1, 3);
    assertThat(first)
        .containsExactly(
            Delivery.PROCESSED, Delivery.PROCESSED, Delivery.DUPLICATE, Delivery.PROCESSED);
    List<Delivery> again =
        consumer(group)
            .processAll(List.of("m3", "m4", "m2"), (index, ctx) -> handled.add(10 + index));
    assertThat(again).containsExactly(Delivery.DUPLICATE, Delivery.PROCESSED, Delivery.DUPLICATE);
    assertThat(handled).containsExactly(0, 1, 3, 11);
  }

  @Test
  void aHandlerThatThrowsEndsTheBatchAndLeavesNoLaterMessageHeld() {
    String group = "batch-" + UUID.randomUUID();
    IdempotentConsumer consumer = consumer(group);
    List<String> ids = List.of("a", "b", "c", "d");
    List<String> handled = Collections.synchronizedList(new ArrayList<>());
    assertThatThrownBy(
            () ->
                consumer.processAll(
                    ids,
                    (index, ctx) -> {
                      if (index == 1) {
                        throw new IllegalStateException("downstream timed out");
                      }
                      handled.add(ids.get(index));
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(handled).containsExactly("a");
    for (String id : List.of("b", "c", "d")) {
      assertThat(store().find(consumer.keyOf(id)))
          .as("%s is free for its redelivery, not held until its lease ends", id)
          .isEmpty();
    }

    List<Delivery> redelivered =
        consumer.processAll(ids, (index, ctx) -> handled.add(ids.get(index)));

    assertThat(redelivered)
        .containsExactly(
            Delivery.DUPLICATE, Delivery.PROCESSED, Delivery.PROCESSED, Delivery.PROCESSED);
    assertThat(handled).containsExactly("a", "b", "c", "d");
  }

  @Test
  void eachMessagesOutcomeIsOnItsWayToTheStoreBeforeTheNextMessageRuns() {
    AtomicInteger completions = new AtomicInteger();
    IdempotencyStore counted =
        new ForwardingIdempotencyStore(store()) {
          @Override
          public CompletableFuture<Boolean> complete(
              Lease lease, Outcome outcome, Duration retention) {
            completions.incrementAndGet();
            return super.complete(lease, outcome, retention);
          }
        };
    Idempotency engine = Idempotency.builder(counted).build();
    engines.add(engine);
    IdempotentConsumer consumer =
        new IdempotentConsumer(
            engine, "batch-" + UUID.randomUUID(), IdempotentConsumer.DEFAULT_CONFIG);
    List<Integer> sentBefore = new ArrayList<>();
    // a crash between two messages must not take the first one's record with it
    consumer.processAll(
        List.of("s1", "s2", "s3"), (index, ctx) -> sentBefore.add(completions.get()));
    assertThat(sentBefore).containsExactly(0, 1, 2);
    assertThat(completions).hasValue(3);
  }

  @Test
  void aTerminalFailureEndsTheBatchAndIsKeptForItsRedelivery() {
    IdempotentConsumer consumer =
        consumerWhoseTerminalFailures(IllegalArgumentException.class::isInstance);
    List<String> ids = List.of("t1", "t2", "t3");
    AtomicInteger ran = new AtomicInteger();
    assertThatThrownBy(
            () ->
                consumer.processAll(
                    ids,
                    (index, ctx) -> {
                      ran.incrementAndGet();
                      if (index == 1) {
                        throw new IllegalArgumentException("malformed order");
                      }
                    }))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store().find(consumer.keyOf("t1")).orElseThrow().state())
        .isEqualTo(RecordState.COMPLETED);
    assertThat(store().find(consumer.keyOf("t2")).orElseThrow().state())
        .as("a terminal failure is the message's answer")
        .isEqualTo(RecordState.COMPLETED);
    assertThat(store().find(consumer.keyOf("t3"))).isEmpty();

    assertThat(consumer.processAll(List.of("t1", "t3"), (index, ctx) -> ran.incrementAndGet()))
        .containsExactly(Delivery.DUPLICATE, Delivery.PROCESSED);
    assertThat(ran).hasValue(3);
  }

  @Test
  void aMessageInFlightElsewhereStopsTheBatchThereAndFreesTheRest() {
    String group = "batch-" + UUID.randomUUID();
    IdempotentConsumer consumer = consumer(group);
    Lease elsewhere = claimOrFail(consumer.keyOf("y"), Fingerprint.NONE, longLease());
    List<String> handled = Collections.synchronizedList(new ArrayList<>());
    List<String> ids = List.of("x", "y", "z");

    assertThatThrownBy(() -> consumer.processAll(ids, (index, ctx) -> handled.add(ids.get(index))))
        .isInstanceOf(RequestInProgressException.class);

    assertThat(handled).containsExactly("x");
    assertThat(store().find(consumer.keyOf("z"))).isEmpty();
    assertThat(release(elsewhere)).as("the other holder keeps its claim").isTrue();
  }

  @Test
  void aBatchThatGoesOnPastFailuresGivesBackOnlyTheFailedMessageAndLeavesOthersClaimsAlone() {
    String group = "batch-" + UUID.randomUUID();
    IdempotentConsumer consumer = consumer(group);
    Lease elsewhere = claimOrFail(consumer.keyOf("busy"), Fingerprint.NONE, longLease());
    List<String> ids = List.of("a", "fails", "busy", "b", "fails", "a");
    List<String> handled = Collections.synchronizedList(new ArrayList<>());

    List<IdempotentConsumer.Handled> first =
        consumer.processEach(
            ids,
            (index, ctx) -> {
              if (ids.get(index).equals("fails")) {
                throw new IllegalStateException("downstream timed out");
              }
              handled.add(ids.get(index));
            },
            Deferral.NONE);

    assertThat(handled).containsExactly("a", "b");
    assertThat(first.get(0)).isEqualTo(new IdempotentConsumer.Handled.Done(Delivery.PROCESSED));
    assertThat(((IdempotentConsumer.Handled.Failed) first.get(1)).failure())
        .isInstanceOf(IllegalStateException.class);
    assertThat(((IdempotentConsumer.Handled.Failed) first.get(1)).requeue()).isTrue();
    assertThat(((IdempotentConsumer.Handled.Failed) first.get(2)).failure())
        .isInstanceOf(RequestInProgressException.class);
    assertThat(((IdempotentConsumer.Handled.Failed) first.get(2)).requeue()).isTrue();
    assertThat(first.get(3)).isEqualTo(new IdempotentConsumer.Handled.Done(Delivery.PROCESSED));
    assertThat(first.get(4)).as("a copy of the failed message").isEqualTo(first.get(1));
    assertThat(first.get(5)).isEqualTo(new IdempotentConsumer.Handled.Done(Delivery.DUPLICATE));
    assertThat(store().find(consumer.keyOf("fails")))
        .as("the failed message is free for its redelivery")
        .isEmpty();
    assertThat(store().find(consumer.keyOf("b")).orElseThrow().state())
        .isEqualTo(RecordState.COMPLETED);
    assertThat(release(elsewhere)).as("the other holder keeps its claim").isTrue();

    List<IdempotentConsumer.Handled> again =
        consumer.processEach(
            List.of("fails", "busy", "a"),
            (index, ctx) -> handled.add(List.of("fails", "busy", "a").get(index)),
            Deferral.NONE);
    assertThat(again)
        .containsExactly(
            new IdempotentConsumer.Handled.Done(Delivery.PROCESSED),
            new IdempotentConsumer.Handled.Done(Delivery.PROCESSED),
            new IdempotentConsumer.Handled.Done(Delivery.DUPLICATE));
    assertThat(handled).containsExactly("a", "b", "fails", "busy");
  }

  @Test
  void aBatchThatGoesOnPastFailuresGivesBackARetriedFailureEvenWithADeferral() {
    String group = "batch-" + UUID.randomUUID();
    IdempotentConsumer consumer = consumer(group);
    List<String> ids = List.of("h1", "h2", "h3");
    List<PendingOutcome> held = new ArrayList<>();

    List<IdempotentConsumer.Handled> handled =
        consumer.processEach(
            ids,
            (index, ctx) -> {
              if (index == 1) {
                throw new IllegalStateException("its effect rolled back");
              }
            },
            held::add);

    assertThat(((IdempotentConsumer.Handled.Failed) handled.get(1)).requeue()).isTrue();
    assertThat(held).extracting(PendingOutcome::key).hasSize(2);
    assertThat(store().find(consumer.keyOf("h2")))
        .as("the failed message is free at once, not held for the caller to store its failure")
        .isEmpty();
    for (String id : List.of("h1", "h3")) {
      assertThat(store().find(consumer.keyOf(id)).orElseThrow().state())
          .as("%s is held until its caller settles it", id)
          .isEqualTo(RecordState.IN_PROGRESS);
    }
    assertThat(PendingOutcome.completeAll(held)).containsExactly(true, true);
    AtomicInteger ran = new AtomicInteger();
    assertThat(
            consumer.processEach(List.of("h2"), (index, ctx) -> ran.incrementAndGet(), held::add))
        .containsExactly(new IdempotentConsumer.Handled.Done(Delivery.PROCESSED));
    assertThat(ran).hasValue(1);
  }

  @Test
  void anErrorEndsABatchThatGoesOnAndLeavesNoOutcomeHeld() {
    String group = "batch-" + UUID.randomUUID();
    IdempotentConsumer consumer = consumer(group);
    List<String> ids = List.of("e1", "e2", "e3");
    List<PendingOutcome> held = new ArrayList<>();
    assertThatThrownBy(
            () ->
                consumer.processEach(
                    ids,
                    (index, ctx) -> {
                      if (index == 1) {
                        throw new AssertionError("out of memory, say");
                      }
                    },
                    held::add))
        .isInstanceOf(AssertionError.class);
    assertThat(held).as("nothing reached the caller's deferral").isEmpty();
    for (String id : ids) {
      assertThat(store().find(consumer.keyOf(id)))
          .as("%s is free, not held by a watchdog until the engine closes", id)
          .isEmpty();
    }
  }

  @Test
  void aTerminalFailureInABatchThatGoesOnIsTheMessagesAnswerAndAsksForNoRedelivery() {
    IdempotentConsumer consumer =
        consumerWhoseTerminalFailures(IllegalArgumentException.class::isInstance);
    List<String> ids = List.of("t1", "t2");
    List<IdempotentConsumer.Handled> handled =
        consumer.processEach(
            ids,
            (index, ctx) -> {
              if (index == 0) {
                throw new IllegalArgumentException("malformed order");
              }
            },
            Deferral.NONE);

    IdempotentConsumer.Handled.Failed failed = (IdempotentConsumer.Handled.Failed) handled.get(0);
    assertThat(failed.failure()).isInstanceOf(IllegalArgumentException.class);
    assertThat(failed.requeue()).as("every redelivery would answer the same").isFalse();
    assertThat(handled.get(1)).isEqualTo(new IdempotentConsumer.Handled.Done(Delivery.PROCESSED));
    assertThat(store().find(consumer.keyOf("t1")).orElseThrow().state())
        .isEqualTo(RecordState.COMPLETED);

    IdempotentConsumer.Handled.Failed again =
        (IdempotentConsumer.Handled.Failed)
            consumer.processEach(List.of("t1"), (index, ctx) -> {}, Deferral.NONE).get(0);
    assertThat(again.failure()).isInstanceOf(ReplayedFailureException.class);
    assertThat(again.requeue()).isFalse();
  }

  @Test
  void aClaimRefusedInABatchThatGoesOnAsksForRedeliveryWhateverTheConfigCallsTerminal() {
    // a classifier that calls every failure terminal classifies the handler's failures, not the
    // refusals of a claim, which pass with time
    IdempotentConsumer consumer = consumerWhoseTerminalFailures(failure -> true);
    ClaimRequest elsewhere =
        ClaimRequest.of(consumer.keyOf("busy"), Fingerprint.NONE, Duration.ofMinutes(5));
    Lease lease = ((ClaimResult.Claimed) now(store().claim(elsewhere))).lease();
    AtomicInteger ran = new AtomicInteger();

    List<IdempotentConsumer.Handled> handled =
        consumer.processEach(
            List.of("free", "busy"), (index, ctx) -> ran.incrementAndGet(), Deferral.NONE);

    assertThat(handled.get(0)).isEqualTo(new IdempotentConsumer.Handled.Done(Delivery.PROCESSED));
    IdempotentConsumer.Handled.Failed busy = (IdempotentConsumer.Handled.Failed) handled.get(1);
    assertThat(busy.failure()).isInstanceOf(RequestInProgressException.class);
    assertThat(busy.requeue()).as("its copy elsewhere may yet fail").isTrue();
    assertThat(ran).hasValue(1);
    assertThat(now(store().release(lease))).isTrue();
    assertThat(
            consumer.processEach(
                List.of("busy"), (index, ctx) -> ran.incrementAndGet(), Deferral.NONE))
        .containsExactly(new IdempotentConsumer.Handled.Done(Delivery.PROCESSED));
    assertThat(ran).hasValue(2);
  }

  @Test
  void aCallThatThrewIsToldOnceWithWhatItThrewThoughItsAnswerCouldNotBeStored() {
    IdempotencyStore refusing =
        new ForwardingIdempotencyStore(store()) {
          @Override
          public CompletableFuture<Boolean> complete(
              Lease lease, Outcome outcome, Duration retention) {
            return super.complete(lease, outcome, retention).thenApply(stored -> false);
          }
        };
    Idempotency engine = Idempotency.builder(refusing).build();
    engines.add(engine);
    IdempotencyKey key = newKey();
    List<Exception> told = Collections.synchronizedList(new ArrayList<>());
    engine.executeEach(
        Map.of(key, Fingerprint.NONE),
        ResultCodec.none(),
        ctx -> {
          throw new IllegalArgumentException("refused for good");
        },
        IdempotencyConfig.custom().terminalWhen(IllegalArgumentException.class::isInstance).build(),
        Deferral.NONE,
        (k, failure) -> told.add(failure));
    assertThat(told).hasSize(1);
    assertThat(told.get(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void underWaitABatchWaitsForAMessageInFlightElsewhere() throws Exception {
    String group = "batch-" + UUID.randomUUID();
    IdempotentConsumer consumer =
        consumer(
            group,
            IdempotencyConfig.custom()
                .retention(Duration.ofHours(1))
                .waitInProgress(Duration.ofSeconds(20))
                .build());
    Lease elsewhere = claimOrFail(consumer.keyOf("w2"), Fingerprint.NONE, longLease());
    List<String> handled = Collections.synchronizedList(new ArrayList<>());
    List<String> ids = List.of("w1", "w2", "w3");
    Thread other =
        new Thread(
            () -> {
              try {
                Thread.sleep(300);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              complete(elsewhere, Outcome.success(new byte[0]), longLease());
            });
    other.start();
    try {
      List<Delivery> deliveries =
          consumer.processAll(ids, (index, ctx) -> handled.add(ids.get(index)));
      assertThat(deliveries)
          .containsExactly(Delivery.PROCESSED, Delivery.DUPLICATE, Delivery.PROCESSED);
      assertThat(handled).containsExactly("w1", "w3");
    } finally {
      other.join();
    }
  }

  @Test
  void underWaitABatchWaitingForAKeyFreesTheKeysItClaimedAheadMeanwhile() throws Exception {
    String group = "batch-" + UUID.randomUUID();
    IdempotentConsumer waiting =
        consumer(
            group,
            IdempotencyConfig.custom()
                .retention(Duration.ofHours(1))
                .waitInProgress(Duration.ofSeconds(3))
                .build());
    IdempotentConsumer other = consumer(group);
    // another consumer holds x1 and lets it go only once it has handled x2, which the batch
    // claimed ahead: the batch must not hold x2 while it waits for x1
    Lease x1 = claimOrFail(waiting.keyOf("x1"), Fingerprint.NONE, longLease());
    Thread holder =
        new Thread(
            () -> {
              long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
              while (System.nanoTime() < until) {
                try {
                  other.process("x2", ctx -> null);
                  complete(x1, Outcome.success(new byte[0]), longLease());
                  return;
                } catch (RequestInProgressException e) {
                  Thread.onSpinWait();
                }
              }
            });
    holder.start();
    try {
      AtomicInteger ran = new AtomicInteger();
      List<Delivery> deliveries =
          waiting.processAll(List.of("x1", "x2"), (index, ctx) -> ran.incrementAndGet());
      assertThat(deliveries).containsExactly(Delivery.DUPLICATE, Delivery.DUPLICATE);
      assertThat(ran).hasValue(0);
    } finally {
      holder.join();
    }
  }

  // An outcome that is not the engine's (the caller's own) and fails first stops nothing: the
  // held ones after it are completed, then its failure is thrown.
  @Test
  void everyHeldOutcomeIsCompletedWhenAnOutcomeBeforeItFails() {
    String group = "batch-" + UUID.randomUUID();
    IdempotentConsumer consumer = consumer(group);
    List<PendingOutcome> held = new ArrayList<>();
    List<String> ids = List.of("s1", "s2");
    consumer.processAll(ids, (index, ctx) -> {}, held::add);
    PendingOutcome broken =
        new PendingOutcome() {
          @Override
          public IdempotencyKey key() {
            return consumer.keyOf("broken");
          }

          @Override
          public boolean complete() {
            throw new IllegalStateException("broken outcome");
          }

          @Override
          public void release() {}

          @Override
          public void keep() {}
        };
    List<PendingOutcome> all = new ArrayList<>();
    all.add(broken);
    all.addAll(held);

    assertThatThrownBy(() -> PendingOutcome.completeAll(all)).hasMessage("broken outcome");

    for (String id : ids) {
      assertThat(store().find(consumer.keyOf(id)).orElseThrow().state())
          .as(id)
          .isEqualTo(RecordState.COMPLETED);
    }
  }

  @Test
  void heldOutcomesOfABatchAreCompletedTogether() {
    String group = "batch-" + UUID.randomUUID();
    IdempotentConsumer consumer = consumer(group);
    List<PendingOutcome> held = new ArrayList<>();
    List<String> ids = List.of("p", "q", "r");
    consumer.processAll(ids, (index, ctx) -> {}, held::add);
    assertThat(held).hasSize(3);
    for (String id : ids) {
      assertThat(store().find(consumer.keyOf(id)).orElseThrow().state())
          .isEqualTo(RecordState.IN_PROGRESS);
    }

    assertThat(PendingOutcome.completeAll(held)).containsExactly(true, true, true);

    AtomicInteger ran = new AtomicInteger();
    assertThat(consumer.processAll(ids, (index, ctx) -> ran.incrementAndGet()))
        .containsOnly(Delivery.DUPLICATE);
    assertThat(ran).hasValue(0);
    assertThatThrownBy(() -> PendingOutcome.completeAll(List.of(held.get(0))))
        .as("an outcome is settled once")
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aBatchSlowerThanHalfALeaseRunsItsLaterMessagesOnLiveLeases() throws Exception {
    Duration lease = Duration.ofMillis(600);
    String group = "batch-" + UUID.randomUUID();
    IdempotentConsumer consumer =
        consumer(
            group, IdempotencyConfig.custom().lease(lease).retention(Duration.ofHours(1)).build());
    List<Delivery> deliveries =
        consumer.processAll(
            List.of("slow", "later"),
            (index, ctx) -> {
              if (index == 0) {
                Thread.sleep(lease.toMillis() / 2 + 200);
              }
            });
    assertThat(deliveries).containsOnly(Delivery.PROCESSED);
    assertThat(store().find(consumer.keyOf("later")).orElseThrow().state())
        .isEqualTo(RecordState.COMPLETED);
  }

  @Test
  void batchesThatOverlapOnTwoConsumersHandleEachMessageOnce() throws Exception {
    String group = "batch-" + UUID.randomUUID();
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    List<String> ids = IntStream.range(0, 60).mapToObj(i -> "o" + i).toList();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int c = 0; c < 2; c++) {
        IdempotentConsumer consumer = consumer(group);
        List<String> mine = new ArrayList<>(ids);
        Collections.shuffle(mine);
        runs.add(
            pool.submit(
                () -> {
                  // a refused batch comes again, as a broker redelivers it
                  for (int attempt = 0; attempt < 200; attempt++) {
                    try {
                      consumer.processAll(
                          mine,
                          (index, ctx) ->
                              effects
                                  .computeIfAbsent(mine.get(index), k -> new AtomicInteger())
                                  .incrementAndGet());
                      return;
                    } catch (RequestInProgressException e) {
                      Thread.onSpinWait();
                    }
                  }
                  throw new AssertionError("a batch was refused 200 times");
                }));
      }
      for (Future<?> run : runs) {
        run.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(effects).hasSize(ids.size());
    assertThat(effects.values()).allSatisfy(n -> assertThat(n).hasValue(1));
  }
}
