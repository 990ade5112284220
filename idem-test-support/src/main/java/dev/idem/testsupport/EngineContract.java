package dev.idem.testsupport;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Executed;
import dev.idem.core.ExecutionOutcome;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.KeyReuseException;
import dev.idem.core.LeaseLostException;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.ResultCodec;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.StoreCapability;
import dev.idem.testsupport.FaultInjectingStore.Operation;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's behaviour on a backend's store: replay, release on retryable failure, terminal
 * failures, duplicates in flight (REJECT and WAIT), watchdog, fail closed and fail open. Runs in
 * real time, since the watchdog renews by the wall clock. How outcomes are settled (held for a
 * transaction, too large, failing codecs) is {@link OutcomeContract}'s.
 *
 * <p>Just over 400 lines because a backend extends one type for these promises, which must all hold
 * together; each test in it is short and stands alone.
 */
public abstract class EngineContract extends EngineContractSupport {

  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopCallers() {
    pool.shutdownNow();
  }

  @Test
  void runsTheWorkOnceAndReplaysTheFirstResult() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger runs = new AtomicInteger();
    Executed<String> first = call(engine, key, "a", runs, IdempotencyConfig.ofDefaults());
    Executed<String> again = call(engine, key, "a", runs, IdempotencyConfig.ofDefaults());
    assertThat(first).isEqualTo(new Executed<>("result-1", false));
    assertThat(again).isEqualTo(new Executed<>("result-1", true));
    assertThat(runs).hasValue(1);
  }

  @Test
  void handsTheFenceOfItsLeaseToTheWork() {
    IdempotencyKey key = newKey();
    long fence =
        engine(store())
            .call(key, Fingerprint.NONE)
            .run(ctx -> Long.toString(ctx.fence()))
            .transform(Long::parseLong);
    assertThat(fence).isPositive().isEqualTo(store().find(key).orElseThrow().fence());
  }

  @Test
  void aRetryableFailureReachesTheCallerUnchangedAndFreesTheKey() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    assertThatThrownBy(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .run(
                        ctx -> {
                          throw new IOException("connection reset");
                        }))
        .isExactlyInstanceOf(IOException.class)
        .hasMessage("connection reset");
    assertThat(store().find(key)).isEmpty();
    assertThat(engine.call(key, Fingerprint.NONE).run(ctx -> "retried")).isEqualTo("retried");
  }

  @Test
  void aTerminalFailureIsStoredAndReplayed() {
    Idempotency engine = engine(store());
    IdempotencyConfig config =
        IdempotencyConfig.custom().terminalWhen(e -> e instanceof IllegalArgumentException).build();
    IdempotencyKey key = newKey();
    AtomicInteger runs = new AtomicInteger();
    assertThatThrownBy(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .config(config)
                    .run(
                        ctx -> {
                          runs.incrementAndGet();
                          throw new IllegalArgumentException("card declined");
                        }))
        .isExactlyInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).config(config).run(ctx -> "never"))
        .isInstanceOfSatisfying(
            ReplayedFailureException.class,
            e -> {
              assertThat(e.originalType()).isEqualTo(IllegalArgumentException.class.getName());
              assertThat(e.getMessage()).isEqualTo("card declined");
            });
    assertThat(runs).hasValue(1);
    assertThat(outcomeOf(store().find(key).orElseThrow()).kind()).isEqualTo(Outcome.Kind.FAILURE);
  }

  @Test
  void aDifferentPayloadUnderTheSameKeyIsRefused() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    engine.call(key, fingerprint("a")).run(ctx -> "first");
    assertThatThrownBy(() -> engine.call(key, fingerprint("b")).run(ctx -> "second"))
        .isInstanceOf(KeyReuseException.class);
  }

  @Test
  void aDuplicateInFlightIsRejectedWithRetryAfter() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<String> first =
        pool.submit(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .run(
                        ctx -> {
                          started.countDown();
                          finish.await();
                          return "first";
                        }));
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).run(ctx -> "dup"))
        .isInstanceOfSatisfying(
            RequestInProgressException.class,
            e -> assertThat(e.retryAfter()).isEqualTo(IdempotencyConfig.DEFAULT_RETRY_AFTER));
    finish.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
  }

  @Test
  void aDuplicateInFlightCanWaitForTheFirstResult() throws Exception {
    Idempotency engine = engine(store());
    Idempotency otherNode = engine(store());
    IdempotencyConfig waiting =
        IdempotencyConfig.custom().waitInProgress(Duration.ofSeconds(20)).build();
    IdempotencyKey key = newKey();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<String> first =
        pool.submit(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .config(waiting)
                    .run(
                        ctx -> {
                          started.countDown();
                          finish.await();
                          return "first";
                        }));
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    Future<Executed<String>> sameNode =
        pool.submit(
            () -> engine.call(key, Fingerprint.NONE).config(waiting).runWithStatus(ctx -> "dup"));
    Future<Executed<String>> remote =
        pool.submit(
            () ->
                otherNode.call(key, Fingerprint.NONE).config(waiting).runWithStatus(ctx -> "dup"));
    assertThat(sameNode.isDone()).isFalse();
    finish.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
    assertThat(sameNode.get(10, TimeUnit.SECONDS)).isEqualTo(new Executed<>("first", true));
    assertThat(remote.get(10, TimeUnit.SECONDS)).isEqualTo(new Executed<>("first", true));
  }

  @Test
  void aWaitingDuplicateGivesUpAfterItsLimit() {
    AtomicInteger claims = new AtomicInteger();
    IdempotencyStore counting =
        new ForwardingIdempotencyStore(store()) {
          @Override
          public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
            claims.incrementAndGet();
            return super.claim(request);
          }
        };
    Idempotency engine = engine(counting);
    Duration maxWait = Duration.ofMillis(300);
    IdempotencyConfig waiting = IdempotencyConfig.custom().waitInProgress(maxWait).build();
    IdempotencyKey key = newKey();
    claimOrFail(key, Fingerprint.NONE, longLease());
    long start = System.nanoTime();
    assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).config(waiting).run(ctx -> "dup"))
        .isInstanceOf(RequestInProgressException.class);
    // A duplicate that did not wait (REJECT) answers after one claim, long before its limit.
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("time waited")
        .isGreaterThanOrEqualTo(maxWait);
    assertThat(claims)
        .as("claims: the first and at least one after waiting")
        .hasValueGreaterThan(1);
  }

  @Test
  void fiftyConcurrentCallersGetOneExecutionAndTheSameAnswer() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyConfig waiting =
        IdempotencyConfig.custom().waitInProgress(Duration.ofSeconds(30)).build();
    IdempotencyKey key = newKey();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    List<Future<String>> answers = new java.util.ArrayList<>();
    for (int i = 0; i < 50; i++) {
      answers.add(
          pool.submit(
              () -> {
                go.await();
                return engine
                    .call(key, Fingerprint.NONE)
                    .config(waiting)
                    .run(ctx -> "answer-" + runs.incrementAndGet());
              }));
    }
    go.countDown();
    for (Future<String> answer : answers) {
      assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo("answer-1");
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void waitersWokenByChangeNoticesNeverMissTheRetryThatAnswersThem() throws Exception {
    assumeCapability(StoreCapability.CHANGE_NOTIFICATION);
    assertThat(new WaiterStress(store(), 32, 20).run(scope)).isEmpty();
  }

  @Test
  void theWatchdogKeepsTheLeaseWhileWorkOutlivesIt() throws Exception {
    Idempotency engine = engine(store());
    // Three short leases: the watchdog renews every third of it, so it may stall for two thirds
    // (800 ms by default) on a loaded machine before the lease is really at risk.
    Duration lease = shortLease().multipliedBy(3);
    IdempotencyConfig config = IdempotencyConfig.custom().lease(lease).build();
    IdempotencyKey key = newKey();
    CountDownLatch finish = new CountDownLatch(1);
    Future<Boolean> work =
        pool.submit(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .config(config)
                    .run(
                        ctx -> {
                          finish.await();
                          return "" + ctx.isLeaseLost();
                        })
                    .equals("true"));
    await().atMost(Duration.ofSeconds(10)).until(() -> store().find(key).isPresent());
    IdempotencyRecord claimed = store().find(key).orElseThrow();
    // A lease end one whole lease past the first one was renewed after the first lease would have
    // ended: the work has outlived its lease. Measured on the store's clock, so no tight timing.
    Instant outlived = Objects.requireNonNull(claimed.leaseUntil()).plus(lease);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(lease.dividedBy(6))
        .until(
            () -> {
              assertThat(claim(key, Fingerprint.NONE, longLease()))
                  .isInstanceOf(ClaimResult.InProgress.class);
              IdempotencyRecord now = store().find(key).orElseThrow();
              assertThat(now.fence()).as("fence").isEqualTo(claimed.fence());
              return !Objects.requireNonNull(now.leaseUntil()).isBefore(outlived);
            });
    finish.countDown();
    assertThat(work.get(10, TimeUnit.SECONDS)).as("lease lost").isFalse();
  }

  @Test
  void aLeaseThatCouldNotBeRenewedIsReportedLostAndItsResultNotStored() throws Exception {
    FaultInjectingStore faulty =
        new FaultInjectingStore(store()).failNext(Operation.RENEW, Integer.MAX_VALUE);
    Idempotency engine = engine(faulty);
    IdempotencyConfig config = IdempotencyConfig.custom().lease(shortLease()).build();
    IdempotencyKey key = newKey();
    CountDownLatch takenOver = new CountDownLatch(1);
    Future<String> stale =
        pool.submit(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .config(config)
                    .run(
                        ctx -> {
                          ctx.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
                          takenOver.await();
                          return "stale";
                        }));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                claim(key, Fingerprint.NONE, longLease()) instanceof ClaimResult.Claimed c
                    && complete(c.lease(), Outcome.success("winner".getBytes()), longLease()));
    takenOver.countDown();
    assertThatThrownBy(() -> stale.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(LeaseLostException.class);
    assertThat(outcomeOf(store().find(key).orElseThrow()).payload()).isEqualTo("winner".getBytes());
  }

  @Test
  void failsClosedWhenTheStoreIsDownAtClaim() {
    FaultInjectingStore faulty = new FaultInjectingStore(store()).failNext(Operation.CLAIM, 1);
    AtomicInteger runs = new AtomicInteger();
    assertThatThrownBy(
            () ->
                engine(faulty)
                    .call(newKey(), Fingerprint.NONE)
                    .run(ctx -> "x" + runs.incrementAndGet()))
        .isInstanceOf(IdempotencyStoreException.class);
    assertThat(runs).hasValue(0);
  }

  @Test
  void failsOpenOnlyWhenAskedTo() {
    FaultInjectingStore faulty = new FaultInjectingStore(store()).failNext(Operation.CLAIM, 1);
    IdempotencyConfig open = IdempotencyConfig.custom().failOpen(true).build();
    Executed<String> result =
        engine(faulty)
            .call(newKey(), Fingerprint.NONE)
            .config(open)
            .runWithStatus(
                ctx -> {
                  ctx.discardOutcome(); // nothing is kept of unguarded work anyway
                  return "ran unguarded";
                });
    assertThat(result).isEqualTo(new Executed<>("ran unguarded", false));
  }

  @Test
  void tellsTheListenerHowEachCallEnded() {
    List<ExecutionOutcome> seen = new CopyOnWriteArrayList<>();
    Idempotency engine =
        engine(Idempotency.builder(store()).listener((k, outcome) -> seen.add(outcome)));
    IdempotencyKey key = newKey();
    engine.call(key, fingerprint("a")).run(ctx -> "x");
    engine.call(key, fingerprint("a")).run(ctx -> "x");
    assertThatThrownBy(() -> engine.call(key, fingerprint("b")).run(ctx -> "x"));
    assertThat(seen)
        .containsExactly(
            ExecutionOutcome.EXECUTED, ExecutionOutcome.REPLAYED, ExecutionOutcome.MISMATCH);
  }

  private Executed<String> call(
      Idempotency engine,
      IdempotencyKey key,
      String body,
      AtomicInteger runs,
      IdempotencyConfig config) {
    return engine
        .call(key, fingerprint(body))
        .config(config)
        .runWithStatus(ctx -> "result-" + runs.incrementAndGet());
  }

  // An answer is the caller's own: changing the bytes it got back changes no record the store or a
  // cache in front of it keeps, and so no later replay.
  @Test
  void bytesTheCallerChangesChangeNoLaterAnswer() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    byte[] first =
        engine.call(key, Fingerprint.NONE).codec(ResultCodec.bytes()).run(ctx -> new byte[] {1, 2});
    first[0] = 9;

    byte[] replayed =
        engine.call(key, Fingerprint.NONE).codec(ResultCodec.bytes()).run(ctx -> new byte[] {7});
    replayed[1] = 9;

    assertThat(replayed).containsExactly(1, 9);
    assertThat(
            engine
                .call(key, Fingerprint.NONE)
                .codec(ResultCodec.bytes())
                .run(ctx -> new byte[] {7}))
        .containsExactly(1, 2);
  }
}
