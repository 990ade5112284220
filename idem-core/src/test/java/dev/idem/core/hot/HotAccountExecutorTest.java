package dev.idem.core.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class HotAccountExecutorTest {

  private static final String ACCOUNT = "hot";
  private static final int PAYERS = 64;
  private static final int EACH = 50;

  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @ParameterizedTest
  @EnumSource(HotAccountConfig.Mode.class)
  void sixtyFourPayersAreAllDebitedWhileFundsLastOneBatchAtATime(HotAccountConfig.Mode mode)
      throws Exception {
    GatedStore store = new GatedStore(false);
    store.memory.open(ACCOUNT, new BigDecimal(PAYERS * EACH));
    HotAccountExecutor<String> executor = executor(store, mode);

    Map<DeductionResult, Integer> results = race(executor, (t, i) -> "order-" + t + "-" + i);

    assertThat(results).containsExactly(Map.entry(DeductionResult.APPLIED, PAYERS * EACH));
    assertThat(store.memory.balance(ACCOUNT)).contains(BigDecimal.ZERO);
    assertThat(store.memory.ledger(ACCOUNT)).hasSize(PAYERS * EACH);
    assertThat(store.mostAtOnce).hasValue(1);
    if (mode == HotAccountConfig.Mode.SERIALIZE) {
      assertThat(store.largestBatch).hasValue(1);
    }
    assertThat(executor.activeAccounts()).isZero();
  }

  @Test
  void deductionsAreRefusedExactlyWhenTheFundsRunOut() throws Exception {
    GatedStore store = new GatedStore(false);
    store.memory.open(ACCOUNT, new BigDecimal("1000.00"));

    Map<DeductionResult, Integer> results =
        race(executor(store, HotAccountConfig.Mode.COALESCE), (t, i) -> "order-" + t + "-" + i);

    assertThat(results)
        .containsEntry(DeductionResult.APPLIED, 1000)
        .containsEntry(DeductionResult.INSUFFICIENT_FUNDS, PAYERS * EACH - 1000);
    assertThat(store.memory.balance(ACCOUNT)).contains(new BigDecimal("0.00"));
  }

  @Test
  void aRequestIdSentByManyPayersIsDebitedOnce() throws Exception {
    GatedStore store = new GatedStore(false);
    store.memory.open(ACCOUNT, new BigDecimal(10_000));

    // Every payer sends the same fifty orders, starting at a different one.
    Map<DeductionResult, Integer> results =
        race(executor(store, HotAccountConfig.Mode.COALESCE), (t, i) -> "order-" + (t + i) % EACH);

    assertThat(results)
        .containsEntry(DeductionResult.APPLIED, EACH)
        .containsEntry(DeductionResult.DUPLICATE, (PAYERS - 1) * EACH);
    assertThat(store.memory.balance(ACCOUNT)).contains(new BigDecimal(10_000 - EACH));
  }

  @Test
  void aFailedBatchFailsEveryDeductionInItAndAppliesNone() throws Exception {
    GatedStore store = new GatedStore(true);
    store.memory.open(ACCOUNT, BigDecimal.TEN);
    HotAccountExecutor<String> executor = executor(store, HotAccountConfig.Mode.COALESCE);
    Future<DeductionResult> leader = pay(executor, "first");
    assertThat(store.entered.await(60, TimeUnit.SECONDS)).isTrue();
    Future<DeductionResult> second = pay(executor, "second");
    Future<DeductionResult> poisoned = pay(executor, GatedStore.POISON);
    await().until(() -> executor.queued(ACCOUNT) == 2);

    store.open();

    assertThat(leader.get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    for (Future<DeductionResult> f : List.of(second, poisoned)) {
      assertThatThrownBy(() -> f.get(60, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(DeductionFailedException.class)
          .cause()
          .hasMessage("boom");
    }
    assertThat(store.memory.balance(ACCOUNT)).contains(new BigDecimal(9));
    assertThat(store.memory.ledger(ACCOUNT))
        .extracting(Deduction::requestId)
        .containsExactly("first");
  }

  @Test
  void aStoreThatAnswersANullResultFailsTheBatchInsteadOfHavingItAppliedAgain() {
    // a null result used to read as a closed lane: the caller queued the same deduction again
    InMemoryHotAccountStore<String> memory = new InMemoryHotAccountStore<>();
    memory.open(ACCOUNT, BigDecimal.TEN);
    List<List<Deduction>> batches = new ArrayList<>();
    HotAccountStore<String> store =
        (account, batch) -> {
          batches.add(batch);
          List<DeductionResult> answered = new ArrayList<>(memory.apply(account, batch));
          answered.set(0, null);
          return answered;
        };
    HotAccountExecutor<String> executor =
        new HotAccountExecutor<>(store, HotAccountConfig.ofDefaults());

    assertThatThrownBy(() -> executor.deduct(ACCOUNT, "order-1", BigDecimal.ONE))
        .isInstanceOf(DeductionFailedException.class)
        .cause()
        .hasMessageContaining("null result");
    assertThat(batches).hasSize(1);
  }

  @Test
  void aFullQueueRefusesAtOnceAndQueuesNothing() throws Exception {
    GatedStore store = new GatedStore(true);
    store.memory.open(ACCOUNT, BigDecimal.TEN);
    HotAccountExecutor<String> executor =
        new HotAccountExecutor<>(store, HotAccountConfig.custom().maxQueueSize(2).build());
    Future<DeductionResult> leader = pay(executor, "first");
    assertThat(store.entered.await(60, TimeUnit.SECONDS)).isTrue();
    List<Future<DeductionResult>> queued = List.of(pay(executor, "a"), pay(executor, "b"));
    await().until(() -> executor.queued(ACCOUNT) == 2);

    assertThatThrownBy(() -> executor.deduct(ACCOUNT, "c", BigDecimal.ONE))
        .isInstanceOf(HotAccountQueueFullException.class);

    store.open();
    assertThat(leader.get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    for (Future<DeductionResult> f : queued) {
      assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    }
    assertThat(store.memory.ledger(ACCOUNT))
        .extracting(Deduction::requestId)
        .containsExactlyInAnyOrder("first", "a", "b");
  }

  @Test
  void aCallerWhoseWaitRunsOutWhileQueuedIsNeverDebited() throws Exception {
    GatedStore store = new GatedStore(true);
    store.memory.open(ACCOUNT, BigDecimal.TEN);
    HotAccountExecutor<String> executor =
        new HotAccountExecutor<>(
            store, HotAccountConfig.custom().maxWait(Duration.ofMillis(50)).build());
    // The leader's own wait does not run out while its batch is in the store.
    Future<DeductionResult> leader = pay(executor, "first");
    assertThat(store.entered.await(60, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(() -> executor.deduct(ACCOUNT, "late", BigDecimal.ONE))
        .isInstanceOfSatisfying(
            DeductionAbandonedException.class,
            e -> {
              assertThat(e.mayHaveApplied()).isFalse();
              assertThat(e.interrupted()).isFalse();
            });

    store.open();
    assertThat(leader.get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    assertThat(executor.deduct(ACCOUNT, "after", BigDecimal.ONE))
        .isEqualTo(DeductionResult.APPLIED);
    assertThat(store.memory.ledger(ACCOUNT))
        .extracting(Deduction::requestId)
        .containsExactly("first", "after");
    assertThat(executor.activeAccounts()).isZero();
  }

  @Test
  void anInterruptedCallerStopsWaitingWithTheFlagSet() throws Exception {
    GatedStore store = new GatedStore(true);
    store.memory.open(ACCOUNT, BigDecimal.TEN);
    HotAccountExecutor<String> executor = executor(store, HotAccountConfig.Mode.COALESCE);
    Future<DeductionResult> leader = pay(executor, "first");
    assertThat(store.entered.await(60, TimeUnit.SECONDS)).isTrue();

    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> executor.deduct(ACCOUNT, "second", BigDecimal.ONE))
        .isInstanceOfSatisfying(
            DeductionAbandonedException.class, e -> assertThat(e.interrupted()).isTrue());
    assertThat(Thread.interrupted()).isTrue();

    store.open();
    assertThat(leader.get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    assertThat(store.memory.balance(ACCOUNT)).contains(new BigDecimal(9));
  }

  @Test
  void anUnknownAccountIsAnsweredAsSuch() {
    HotAccountExecutor<String> executor =
        executor(new GatedStore(false), HotAccountConfig.Mode.SERIALIZE);

    assertThat(executor.deduct("nobody", "order-1", BigDecimal.ONE))
        .isEqualTo(DeductionResult.UNKNOWN_ACCOUNT);
  }

  @Test
  void theFirstCallerOfAnIdleAccountGathersAsManyCallersAsItsLastBatchHeld() throws Exception {
    GatedStore store = new GatedStore(true);
    store.memory.open(ACCOUNT, BigDecimal.TEN);
    HotAccountExecutor<String> executor = gathering(store, Duration.ofMinutes(5));
    lastBatchOfTwo(store, executor);

    Future<DeductionResult> c = pay(executor, "c");
    // Without gathering, c would be applied alone and never be seen queued.
    await().until(() -> executor.queued(ACCOUNT) == 1);
    Future<DeductionResult> d = pay(executor, "d");

    assertThat(c.get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    assertThat(d.get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    assertThat(store.sizes).containsExactly(1, 2, 2);
    assertThat(executor.activeAccounts()).isZero();
  }

  @Test
  void aGatheringCallerGoesAloneWhenNobodyComesWithinTheGatherWait() throws Exception {
    GatedStore store = new GatedStore(true);
    store.memory.open(ACCOUNT, BigDecimal.TEN);
    HotAccountExecutor<String> executor = gathering(store, Duration.ofMillis(20));
    lastBatchOfTwo(store, executor);

    assertThat(pay(executor, "c").get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    assertThat(store.sizes).containsExactly(1, 2, 1);
  }

  @Test
  void aCallerOfAnAccountWithNoBatchesBeforeNeverGathers() throws Exception {
    GatedStore store = new GatedStore(false);
    store.memory.open(ACCOUNT, BigDecimal.TEN);
    HotAccountExecutor<String> executor = gathering(store, Duration.ofHours(1));

    // An hour's gather wait would outlast the get's limit.
    assertThat(pay(executor, "a").get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    assertThat(pay(executor, "b").get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    assertThat(store.sizes).containsExactly(1, 1);
  }

  @Test
  void serializingNeverGathers() throws Exception {
    GatedStore store = new GatedStore(true);
    store.memory.open(ACCOUNT, BigDecimal.TEN);
    HotAccountExecutor<String> executor =
        new HotAccountExecutor<>(
            store,
            HotAccountConfig.custom()
                .mode(HotAccountConfig.Mode.SERIALIZE)
                .maxWait(Duration.ofHours(2))
                .gatherWait(Duration.ofHours(1))
                .build());
    Future<DeductionResult> first = pay(executor, "first");
    assertThat(store.entered.await(60, TimeUnit.SECONDS)).isTrue();
    Future<DeductionResult> second = pay(executor, "second");
    await().until(() -> executor.queued(ACCOUNT) == 1);
    store.open();
    first.get(60, TimeUnit.SECONDS);
    second.get(60, TimeUnit.SECONDS);

    assertThat(pay(executor, "third").get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    assertThat(store.sizes).containsExactly(1, 1, 1);
  }

  // One deduction held in the store while two queue behind it, then all three applied: the lane
  // closes with a last batch of two.
  private void lastBatchOfTwo(GatedStore store, HotAccountExecutor<String> executor)
      throws Exception {
    Future<DeductionResult> first = pay(executor, "first");
    assertThat(store.entered.await(60, TimeUnit.SECONDS)).isTrue();
    List<Future<DeductionResult>> queued = List.of(pay(executor, "a"), pay(executor, "b"));
    await().until(() -> executor.queued(ACCOUNT) == 2);
    store.open();
    assertThat(first.get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    for (Future<DeductionResult> f : queued) {
      assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(DeductionResult.APPLIED);
    }
    assertThat(store.sizes).containsExactly(1, 2);
    assertThat(executor.activeAccounts()).isZero();
  }

  private static HotAccountExecutor<String> gathering(GatedStore store, Duration gatherWait) {
    Duration maxWait = HotAccountConfig.DEFAULT_MAX_WAIT;
    if (gatherWait.compareTo(maxWait) >= 0) {
      maxWait = gatherWait.multipliedBy(2);
    }
    return new HotAccountExecutor<>(
        store, HotAccountConfig.custom().maxWait(maxWait).gatherWait(gatherWait).build());
  }

  @Test
  void badDeductionsAndSettingsAreRefused() {
    assertThatThrownBy(() -> new Deduction("", BigDecimal.ONE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Deduction("x".repeat(256), BigDecimal.ONE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Deduction("order-1", BigDecimal.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HotAccountConfig.custom().maxBatchSize(0).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HotAccountConfig.custom().maxQueueSize(0).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HotAccountConfig.custom().maxWait(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HotAccountConfig.custom().gatherWait(Duration.ofNanos(-1)).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                HotAccountConfig.custom()
                    .maxWait(Duration.ofSeconds(1))
                    .gatherWait(Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shorter than maxWait");
    HotAccountConfig serial =
        HotAccountConfig.from(HotAccountConfig.ofDefaults())
            .mode(HotAccountConfig.Mode.SERIALIZE)
            .build();
    assertThat(serial.maxBatchSize()).isEqualTo(1);
  }

  private static HotAccountExecutor<String> executor(
      HotAccountStore<String> store, HotAccountConfig.Mode mode) {
    return new HotAccountExecutor<>(store, HotAccountConfig.custom().mode(mode).build());
  }

  private Future<DeductionResult> pay(HotAccountExecutor<String> executor, String requestId) {
    return pool.submit(() -> executor.deduct(ACCOUNT, requestId, BigDecimal.ONE));
  }

  interface RequestIds {
    String of(int payer, int deduction);
  }

  private Map<DeductionResult, Integer> race(HotAccountExecutor<String> executor, RequestIds ids)
      throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<DeductionResult>>> payers = new ArrayList<>();
    for (int t = 0; t < PAYERS; t++) {
      int payer = t;
      Callable<List<DeductionResult>> pays =
          () -> {
            go.await();
            List<DeductionResult> mine = new ArrayList<>();
            for (int i = 0; i < EACH; i++) {
              mine.add(executor.deduct(ACCOUNT, ids.of(payer, i), BigDecimal.ONE));
            }
            return mine;
          };
      payers.add(pool.submit(pays));
    }
    go.countDown();
    Map<DeductionResult, Integer> counts = new EnumMap<>(DeductionResult.class);
    for (Future<List<DeductionResult>> f : payers) {
      f.get(120, TimeUnit.SECONDS).forEach(r -> counts.merge(r, 1, Integer::sum));
    }
    return counts;
  }
}
