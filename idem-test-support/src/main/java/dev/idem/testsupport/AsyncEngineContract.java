package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idem.core.AsyncWork;
import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.testsupport.FaultInjectingStore.Operation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's asynchronous call ({@link dev.idem.core.IdempotentCall#runAsync}) on a backend's
 * store: the same promises as the blocking call for work that ends after it returns, with every
 * store call on the executor given for them and none on the thread that ends the work.
 */
public abstract class AsyncEngineContract extends EngineContractSupport {

  private final ExecutorService storeCalls = Executors.newFixedThreadPool(4, named("idem-store"));
  private final ExecutorService workThreads = Executors.newCachedThreadPool(named("work"));

  @AfterEach
  void stopThreads() {
    storeCalls.shutdownNow();
    workThreads.shutdownNow();
  }

  @Test
  void storesWhatTheStageEndsWithAndReplaysIt() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger runs = new AtomicInteger();
    AsyncWork<String> work = ctx -> later("receipt-" + runs.incrementAndGet());

    assertThat(call(engine, key, work, IdempotencyConfig.ofDefaults()))
        .isEqualTo(new Executed<>("receipt-1", false));
    assertThat(call(engine, key, work, IdempotencyConfig.ofDefaults()))
        .isEqualTo(new Executed<>("receipt-1", true));
    assertThat(runs).hasValue(1);
  }

  @Test
  void anAnswerTheWorkDiscardsBeforeItsStageEndsIsNotStored() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AsyncWork<String> busy =
        ctx ->
            later("busy")
                .thenApply(
                    answer -> {
                      ctx.discardOutcome();
                      return answer;
                    });

    assertThat(call(engine, key, busy, defaults())).isEqualTo(new Executed<>("busy", false));
    assertThat(store().find(key)).as("nothing stored").isEmpty();
    assertThat(call(engine, key, ctx -> later("done"), defaults()))
        .isEqualTo(new Executed<>("done", false));
  }

  @Test
  void aStageThatHasNotEndedHoldsTheKeyAgainstADuplicate() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    CompletableFuture<String> stage = new CompletableFuture<>();
    CompletableFuture<Executed<String>> first =
        engine.call(key, Fingerprint.NONE).config(defaults()).runAsync(ctx -> stage, storeCalls);
    await().until(() -> state(key) == RecordState.IN_PROGRESS);

    assertThatThrownBy(() -> call(engine, key, ctx -> later("second"), defaults()))
        .isInstanceOf(RequestInProgressException.class);
    stage.complete("first");
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new Executed<>("first", false));
    assertThat(call(engine, key, ctx -> later("third"), defaults()))
        .isEqualTo(new Executed<>("first", true));
  }

  @Test
  void aDuplicateUnderWaitGetsTheFirstValueWhenItsStageEnds() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    IdempotencyConfig waits =
        IdempotencyConfig.custom().waitInProgress(Duration.ofSeconds(20)).build();
    CompletableFuture<String> stage = new CompletableFuture<>();
    CompletableFuture<Executed<String>> first =
        engine.call(key, Fingerprint.NONE).config(waits).runAsync(ctx -> stage, storeCalls);
    await().until(() -> state(key) == RecordState.IN_PROGRESS);

    CompletableFuture<Executed<String>> duplicate =
        engine
            .call(key, Fingerprint.NONE)
            .config(waits)
            .runAsync(ctx -> later("never"), storeCalls);
    stage.complete("first");

    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new Executed<>("first", false));
    assertThat(duplicate.get(20, TimeUnit.SECONDS)).isEqualTo(new Executed<>("first", true));
  }

  @Test
  void moreDuplicatesWaitThanTheStoreHasThreadsAndEachGetsTheFirstValue() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    IdempotencyConfig waits =
        IdempotencyConfig.custom().waitInProgress(Duration.ofSeconds(20)).build();
    CompletableFuture<String> stage = new CompletableFuture<>();
    CompletableFuture<Executed<String>> first =
        engine.call(key, Fingerprint.NONE).config(waits).runAsync(ctx -> stage, storeCalls);
    await().until(() -> state(key) == RecordState.IN_PROGRESS);

    // four store threads: a waiter that held one would leave none to store the first value
    List<CompletableFuture<Executed<String>>> duplicates = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      duplicates.add(
          engine
              .call(key, Fingerprint.NONE)
              .config(waits)
              .runAsync(ctx -> later("never"), storeCalls));
    }
    stage.complete("first");

    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new Executed<>("first", false));
    for (CompletableFuture<Executed<String>> duplicate : duplicates) {
      assertThat(duplicate.get(10, TimeUnit.SECONDS)).isEqualTo(new Executed<>("first", true));
    }
  }

  @Test
  void aRetryableFailureOfTheStageFreesTheKey() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    IllegalStateException timeout = new IllegalStateException("gateway timed out");

    assertThatThrownBy(() -> call(engine, key, ctx -> failedLater(timeout), defaults()))
        .isSameAs(timeout);
    assertThat(store().find(key)).isEmpty();
    assertThat(call(engine, key, ctx -> later("second try"), defaults()))
        .isEqualTo(new Executed<>("second try", false));
  }

  @Test
  void workThatThrowsBeforeItsStageFreesTheKey() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    IllegalStateException refused = new IllegalStateException("no connection");

    assertThatThrownBy(
            () ->
                call(
                    engine,
                    key,
                    ctx -> {
                      throw refused;
                    },
                    defaults()))
        .isSameAs(refused);
    assertThat(store().find(key)).isEmpty();
  }

  @Test
  void aTerminalFailureOfTheStageIsStoredAndReplayed() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyConfig config =
        IdempotencyConfig.custom().terminalWhen(e -> e instanceof IllegalArgumentException).build();
    IdempotencyKey key = newKey();

    assertThatThrownBy(
            () ->
                call(
                    engine,
                    key,
                    ctx -> failedLater(new IllegalArgumentException("declined")),
                    config))
        .isExactlyInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> call(engine, key, ctx -> later("never"), config))
        .isInstanceOfSatisfying(
            ReplayedFailureException.class, e -> assertThat(e.getMessage()).isEqualTo("declined"));
    assertThat(outcomeOf(store().find(key).orElseThrow()).kind()).isEqualTo(Outcome.Kind.FAILURE);
  }

  @Test
  void cancellingTheAnswerLeavesTheWorkToEndAndStoresItsOutcome() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger runs = new AtomicInteger();
    CompletableFuture<String> stage = new CompletableFuture<>();
    CompletableFuture<Executed<String>> first =
        engine
            .call(key, Fingerprint.NONE)
            .config(defaults())
            .runAsync(
                ctx -> {
                  runs.incrementAndGet();
                  return stage;
                },
                storeCalls);
    await().until(() -> state(key) == RecordState.IN_PROGRESS);

    first.cancel(true);
    assertThat(state(key)).isEqualTo(RecordState.IN_PROGRESS);
    stage.complete("charged");

    await().until(() -> state(key) == RecordState.COMPLETED);
    assertThat(call(engine, key, ctx -> later("again " + runs.incrementAndGet()), defaults()))
        .isEqualTo(new Executed<>("charged", true));
    assertThat(runs).hasValue(1);
  }

  @Test
  void noStoreCallRunsOnTheThreadThatEndsTheWork() throws Exception {
    List<String> callers = new CopyOnWriteArrayList<>();
    Idempotency engine = engine(new ThreadRecordingStore(store(), callers));
    IdempotencyKey key = newKey();

    call(engine, key, ctx -> later("done"), defaults());
    call(engine, key, ctx -> later("replayed"), defaults());
    assertThatThrownBy(
            () ->
                call(engine, newKey(), ctx -> failedLater(new IllegalStateException()), defaults()))
        .isInstanceOf(IllegalStateException.class);

    assertThat(callers).isNotEmpty().allMatch(name -> name.startsWith("idem-store"));
  }

  @Test
  void theWorkStartsOnAStoreThreadNeverOnTheCallersEvenAfterAQuickClaim() throws Exception {
    Idempotency engine = engine(store());
    // hands a task of the caller's to a store thread and returns only once it has ended: the
    // quickest claim (others, such as a non-blocking store's answer coming back on its client's
    // thread, are handed over as the engine asks of an executor)
    Thread caller = Thread.currentThread();
    java.util.concurrent.Executor finishedBeforeReturning =
        command -> {
          if (Thread.currentThread() != caller) {
            storeCalls.execute(command);
            return;
          }
          try {
            storeCalls.submit(command).get(10, TimeUnit.SECONDS);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    List<String> starters = new CopyOnWriteArrayList<>();
    Executed<String> answer =
        engine
            .call(newKey(), Fingerprint.NONE)
            .config(defaults())
            .runAsync(
                ctx -> {
                  starters.add(Thread.currentThread().getName());
                  return later("started");
                },
                finishedBeforeReturning)
            .get(10, TimeUnit.SECONDS);
    assertThat(answer.value()).isEqualTo("started");
    assertThat(starters).singleElement().asString().startsWith("idem-store");
  }

  @Test
  void failsClosedWhenTheStoreIsDownAtClaim() {
    FaultInjectingStore faulty = new FaultInjectingStore(store()).failNext(Operation.CLAIM, 1);
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                call(
                    engine(faulty),
                    newKey(),
                    ctx -> later("x" + runs.incrementAndGet()),
                    defaults()))
        .isInstanceOf(IdempotencyStoreException.class);
    assertThat(runs).hasValue(0);
  }

  @Test
  void failsOpenOnlyWhenAskedTo() throws Exception {
    FaultInjectingStore faulty = new FaultInjectingStore(store()).failNext(Operation.CLAIM, 1);
    IdempotencyConfig open = IdempotencyConfig.custom().failOpen(true).build();

    assertThat(call(engine(faulty), newKey(), ctx -> later("ran unguarded"), open))
        .isEqualTo(new Executed<>("ran unguarded", false));
  }

  private static IdempotencyConfig defaults() {
    return IdempotencyConfig.ofDefaults();
  }

  /** Calls and waits for the answer; throws what the answer failed with, unwrapped. */
  private Executed<String> call(
      Idempotency engine, IdempotencyKey key, AsyncWork<String> work, IdempotencyConfig config)
      throws Exception {
    try {
      return engine
          .call(key, Fingerprint.NONE)
          .config(config)
          .runAsync(work, storeCalls)
          .get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof Exception failure) {
        throw failure;
      }
      throw e;
    }
  }

  /** A stage that a work thread ends a little later with {@code value}. */
  private CompletableFuture<String> later(String value) {
    return CompletableFuture.supplyAsync(() -> value, workThreads);
  }

  private CompletableFuture<String> failedLater(RuntimeException failure) {
    return CompletableFuture.supplyAsync(
        () -> {
          throw failure;
        },
        workThreads);
  }

  private @Nullable RecordState state(IdempotencyKey key) {
    return store().find(key).map(r -> r.state()).orElse(null);
  }

  private static java.util.concurrent.ThreadFactory named(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread thread = new Thread(r, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Writes down the name of the thread each claim, complete and release ran on. */
  private static final class ThreadRecordingStore extends ForwardingIdempotencyStore {
    private final List<String> callers;

    ThreadRecordingStore(dev.idem.core.store.IdempotencyStore delegate, List<String> callers) {
      super(delegate);
      this.callers = callers;
    }

    @Override
    public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
      callers.add(Thread.currentThread().getName());
      return super.claim(request);
    }

    @Override
    public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
      callers.add(Thread.currentThread().getName());
      return super.complete(lease, outcome, retention);
    }

    @Override
    public CompletableFuture<Boolean> release(Lease lease) {
      callers.add(Thread.currentThread().getName());
      return super.release(lease);
    }
  }
}
