package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Deferral;
import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.PendingOutcome;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.ResultCodec;
import dev.idem.core.StoreFullException;
import dev.idem.core.Work;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.testsupport.FaultInjectingStore.Operation;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * How the engine settles the outcome of work that ran, on a backend's store: outcomes held for the
 * caller's transaction (a retryable failure included), a result the store refuses as too large (the
 * key stays taken), a terminal classifier or codec that throws (the key is freed), and a completion
 * that is retried or whose reply was lost, and a caller past its scope cap. Each test stands alone.
 *
 * <p>Just over 400 lines because a backend extends one type for these promises, which must all hold
 * together.
 */
public abstract class OutcomeContract extends EngineContractSupport {

  @Test
  void aHeldOutcomeKeepsTheKeyInProgressUntilCompletedThenReplays() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    List<PendingOutcome> held = new CopyOnWriteArrayList<>();
    Executed<String> first =
        engine
            .call(key, Fingerprint.NONE)
            .config(defaults())
            .deferTo(held::add)
            .runWithStatus(ctx -> "ran");
    assertThat(first).isEqualTo(new Executed<>("ran", false));
    assertThat(held).hasSize(1);
    assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).run(c -> "dup"))
        .isInstanceOf(RequestInProgressException.class);
    assertThat(held.get(0).complete()).isTrue();
    assertThat(engine.call(key, Fingerprint.NONE).run(c -> "again")).isEqualTo("ran");
    assertThatThrownBy(() -> held.get(0).release()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aValueKeptForNoTimeIsAnsweredNotStoredAndARetryRunsAgain() {
    Idempotency engine = engine(store());
    List<String> encoded = new CopyOnWriteArrayList<>();
    ResultCodec<String> passing =
        new ResultCodec<>() {
          @Override
          public byte[] encode(String value) {
            encoded.add(value);
            return ResultCodec.utf8().encode(value);
          }

          @Override
          public String decode(byte[] bytes) {
            return ResultCodec.utf8().decode(bytes);
          }

          @Override
          public Duration retention(String value, Duration retention) {
            return value.startsWith("busy") ? Duration.ZERO : retention;
          }
        };
    IdempotencyKey key = newKey();
    assertThat(
            engine
                .call(key, Fingerprint.NONE)
                .codec(passing)
                .config(defaults())
                .runWithStatus(c -> "busy 1"))
        .isEqualTo(new Executed<>("busy 1", false));
    assertThat(store().find(key)).as("nothing stored").isEmpty();

    List<PendingOutcome> held = new CopyOnWriteArrayList<>();
    engine
        .call(key, Fingerprint.NONE)
        .codec(passing)
        .config(defaults())
        .deferTo(held::add)
        .runWithStatus(c -> "busy 2");
    assertThat(store().find(key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(held.get(0).complete()).isTrue();
    assertThat(store().find(key)).as("freed when the transaction ends").isEmpty();

    assertThat(engine.call(key, Fingerprint.NONE).codec(passing).run(c -> "done"))
        .isEqualTo("done");
    assertThat(engine.call(key, Fingerprint.NONE).codec(passing).run(c -> "again"))
        .isEqualTo("done");
    assertThat(encoded).as("only the stored value encoded").containsExactly("done");
  }

  @Test
  void aDiscardedAnswerOrTerminalFailureIsAnsweredNotStoredAndARetryRunsAgain() {
    Idempotency engine = engine(store());
    IdempotencyConfig config =
        IdempotencyConfig.custom().terminalWhen(e -> e instanceof IllegalArgumentException).build();
    IdempotencyKey key = newKey();
    Work<String, RuntimeException> busy =
        ctx -> {
          ctx.discardOutcome();
          return "busy";
        };
    assertThat(engine.call(key, Fingerprint.NONE).config(config).runWithStatus(busy))
        .isEqualTo(new Executed<>("busy", false));
    assertThat(store().find(key)).as("nothing stored").isEmpty();
    assertThatThrownBy(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .config(config)
                    .run(
                        ctx -> {
                          ctx.discardOutcome();
                          throw new IllegalArgumentException("declined for now");
                        }))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store().find(key)).as("a discarded terminal failure is not kept").isEmpty();

    List<PendingOutcome> held = new CopyOnWriteArrayList<>();
    engine.call(key, Fingerprint.NONE).config(config).deferTo(held::add).runWithStatus(busy);
    assertThat(store().find(key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(held.get(0).complete()).isTrue();
    assertThat(store().find(key)).as("freed when the transaction ends").isEmpty();
    assertThat(engine.call(key, Fingerprint.NONE).config(config).run(c -> "done"))
        .isEqualTo("done");
    assertThat(engine.call(key, Fingerprint.NONE).config(config).run(busy))
        .as("the stored answer, not another run")
        .isEqualTo("done");
  }

  @Test
  void aKeptHeldOutcomeHoldsTheKeyUntilItsLeaseEndsThenTheSameRequestTakesOver() {
    Idempotency engine = engine(store());
    IdempotencyConfig config = IdempotencyConfig.custom().lease(shortLease()).build();
    IdempotencyKey key = newKey();
    List<PendingOutcome> held = new CopyOnWriteArrayList<>();
    engine
        .call(key, Fingerprint.NONE)
        .config(config)
        .deferTo(held::add)
        .runWithStatus(ctx -> "ran");
    held.get(0).keep();
    assertThat(store().find(key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).config(config).run(c -> "again"))
        .isInstanceOf(RequestInProgressException.class);
    passBeyond(shortLease());
    assertThat(engine.call(key, Fingerprint.NONE).config(config).run(c -> "taken over"))
        .isEqualTo("taken over");
  }

  @Test
  void aReleasedHeldOutcomeOrTerminalFailureLetsARetryRunAgain() {
    Idempotency engine = engine(store());
    IdempotencyConfig config =
        IdempotencyConfig.custom().terminalWhen(e -> e instanceof IllegalArgumentException).build();
    IdempotencyKey key = newKey();
    List<PendingOutcome> held = new CopyOnWriteArrayList<>();
    engine
        .call(key, Fingerprint.NONE)
        .config(config)
        .deferTo(held::add)
        .runWithStatus(ctx -> "ran");
    held.get(0).release();
    assertThat(store().find(key)).isEmpty();
    assertThatThrownBy(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .config(config)
                    .deferTo(held::add)
                    .runWithStatus(
                        ctx -> {
                          throw new IllegalArgumentException("declined");
                        }))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(held).hasSize(2);
    held.get(1).release();
    assertThat(engine.call(key, Fingerprint.NONE).config(config).run(c -> "retried"))
        .isEqualTo("retried");
  }

  @Test
  void aRetryableFailureIsHeldTooSoThatACommitStoresAndReplaysIt() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    List<PendingOutcome> held = new CopyOnWriteArrayList<>();
    assertThatThrownBy(() -> failWithIOException(engine, key, held::add))
        .isInstanceOf(IOException.class);
    assertThat(held).hasSize(1);
    assertThat(store().find(key))
        .get()
        .extracting(r -> r.state())
        .isEqualTo(RecordState.IN_PROGRESS);
    assertThat(held.get(0).complete()).isTrue();
    assertThatThrownBy(() -> failWithIOException(engine, key, held::add))
        .isInstanceOf(ReplayedFailureException.class)
        .hasMessage("reset")
        .extracting(e -> ((ReplayedFailureException) e).originalType())
        .isEqualTo(IOException.class.getName());
    assertThat(held).hasSize(1);
  }

  @Test
  void aRetryableFailureHeldAndReleasedLetsARetryRunAgain() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    List<PendingOutcome> held = new CopyOnWriteArrayList<>();
    assertThatThrownBy(() -> failWithIOException(engine, key, held::add))
        .isInstanceOf(IOException.class);
    held.get(0).release();
    assertThat(store().find(key)).isEmpty();
    assertThat(engine.call(key, Fingerprint.NONE).run(c -> "retried")).isEqualTo("retried");
  }

  private static void failWithIOException(Idempotency engine, IdempotencyKey key, Deferral held)
      throws IOException {
    engine
        .call(key, Fingerprint.NONE)
        .config(defaults())
        .deferTo(held)
        .runWithStatus(
            ctx -> {
              throw new IOException("reset");
            });
  }

  @Test
  void aResultTheStoreRefusesAsTooLargeKeepsTheKeyAndRepeatsAreRefusedNotRun() {
    Idempotency engine = engine(new SizeLimited(store(), 64));
    IdempotencyKey key = newKey();
    AtomicInteger runs = new AtomicInteger();
    String large = "x".repeat(1000);
    Work<String, RuntimeException> work =
        ctx -> {
          runs.incrementAndGet();
          return large;
        };
    assertThat(engine.call(key, Fingerprint.NONE).run(work)).isEqualTo(large);
    for (int repeat = 0; repeat < 2; repeat++) {
      assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).run(work))
          .isInstanceOf(OutcomeNotReplayableException.class)
          .hasMessageContaining("over the store's limit of 64 bytes");
    }
    assertThat(runs).hasValue(1);
    assertThat(store().find(key))
        .get()
        .extracting(r -> outcomeOf(r).kind())
        .isEqualTo(Outcome.Kind.UNSTORED);
  }

  @Test
  void aResultTheCodecRefusesAsTooLargeKeepsTheKeyAsTheStoreDoes() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger runs = new AtomicInteger();
    ResultCodec<String> bounded =
        new ResultCodec<>() {
          @Override
          public byte[] encode(String value) {
            throw new OutcomeTooLargeException(
                "outcome of " + value.length() + " elements is over the limit of 3 elements",
                value.length(),
                3);
          }

          @Override
          public String decode(byte[] bytes) {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
          }
        };
    Work<String, RuntimeException> work = ctx -> "ran " + runs.incrementAndGet();
    assertThat(engine.call(key, Fingerprint.NONE).codec(bounded).run(work)).isEqualTo("ran 1");
    assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).codec(bounded).run(work))
        .isInstanceOf(OutcomeNotReplayableException.class)
        .hasMessageContaining("over the limit of 3 elements");
    assertThat(runs).hasValue(1);
  }

  @Test
  void aDeferralThatCannotTakeTheOutcomeFreesTheKey() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    assertThatThrownBy(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .config(defaults())
                    .deferTo(
                        held -> {
                          throw new IllegalStateException("no transaction to hold it for");
                        })
                    .runWithStatus(ctx -> "ran"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no transaction to hold it for");
    assertThat(store().find(key)).isEmpty();
  }

  @Test
  void aTerminalClassifierThatThrowsFreesTheKey() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    IdempotencyConfig broken =
        IdempotencyConfig.custom()
            .terminalWhen(
                e -> {
                  throw new IllegalStateException("classifier bug");
                })
            .build();
    assertThatThrownBy(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .config(broken)
                    .run(
                        ctx -> {
                          throw new IOException("reset");
                        }))
        .isInstanceOf(IOException.class);
    assertThat(store().find(key)).isEmpty();
    assertThat(engine.call(key, Fingerprint.NONE).config(broken).run(c -> "retried"))
        .isEqualTo("retried");
  }

  @Test
  void aCodecThatCannotEncodeTheResultFreesTheKey() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    ResultCodec<String> broken =
        new ResultCodec<>() {
          @Override
          public byte[] encode(String value) {
            throw new IllegalArgumentException("cannot encode " + value);
          }

          @Override
          public String decode(byte[] bytes) {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
          }
        };
    assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).codec(broken).run(ctx -> "value"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store().find(key)).isEmpty();
  }

  @Test
  void aCompletionThatLandedButWhoseReplyWasLostIsSuccess() {
    Idempotency engine = engine(new ReplyLost(store()));
    IdempotencyKey key = newKey();
    assertThat(engine.call(key, Fingerprint.NONE).run(ctx -> "done")).isEqualTo("done");
    assertThat(engine.call(key, Fingerprint.NONE).config(defaults()).runWithStatus(ctx -> "again"))
        .isEqualTo(new Executed<>("done", true));
  }

  /** The backend's store with a size limit on outcomes, as the JDBC store has of its own. */
  private static final class SizeLimited extends ForwardingIdempotencyStore {
    private final int limit;

    SizeLimited(IdempotencyStore store, int limit) {
      super(store);
      this.limit = limit;
    }

    @Override
    public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
      if (outcome.payload().length > limit) {
        return CompletableFuture.failedFuture(
            new OutcomeTooLargeException(outcome.payload().length, limit));
      }
      return super.complete(lease, outcome, retention);
    }
  }

  /** The backend's store, whose first completion is carried out but its reply lost. */
  private static final class ReplyLost extends ForwardingIdempotencyStore {
    private final java.util.concurrent.atomic.AtomicBoolean lost =
        new java.util.concurrent.atomic.AtomicBoolean();

    ReplyLost(IdempotencyStore store) {
      super(store);
    }

    @Override
    public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
      return super.complete(lease, outcome, retention)
          .thenApply(
              stored -> {
                if (lost.compareAndSet(false, true)) {
                  throw new IdempotencyStoreException("the reply of the completion was lost");
                }
                return stored;
              });
    }
  }

  @Test
  void retriesCompletionWhenTheStoreFailsBriefly() {
    FaultInjectingStore faulty = new FaultInjectingStore(store()).failNext(Operation.COMPLETE, 2);
    Idempotency engine = engine(faulty);
    IdempotencyKey key = newKey();
    assertThat(engine.call(key, Fingerprint.NONE).run(ctx -> "done")).isEqualTo("done");
    assertThat(
            engine
                .call(key, Fingerprint.NONE)
                .config(IdempotencyConfig.ofDefaults())
                .runWithStatus(ctx -> "again"))
        .isEqualTo(new Executed<>("done", true));
  }

  private static IdempotencyConfig defaults() {
    return IdempotencyConfig.ofDefaults();
  }

  @Test
  void aCallerPastItsScopeCapIsRefusedWithoutRunningTheWorkEvenFailingOpen() {
    IdempotencyConfig capped = IdempotencyConfig.custom().scopeCap(2).failOpen(true).build();
    Idempotency engine = engine(store());
    String mallory = scope + ":orders|mallory";
    AtomicInteger runs = new AtomicInteger();
    Work<String, RuntimeException> work = ctx -> "run " + runs.incrementAndGet();
    for (int i = 0; i < 2; i++) {
      engine.call(IdempotencyKey.of(mallory, "k" + i), Fingerprint.NONE).config(capped).run(work);
    }
    assertThatThrownBy(
            () ->
                engine
                    .call(IdempotencyKey.of(mallory, "k2"), Fingerprint.NONE)
                    .config(capped)
                    .run(work))
        .isInstanceOf(StoreFullException.class)
        .hasMessageContaining("cap of 2")
        .hasMessageContaining(mallory);
    assertThat(
            engine
                .call(IdempotencyKey.of(mallory, "k0"), Fingerprint.NONE)
                .config(capped)
                .run(work))
        .as("a repeat is still answered")
        .isEqualTo("run 1");
    assertThat(
            engine
                .call(IdempotencyKey.of(scope + ":orders|alice", "k0"), Fingerprint.NONE)
                .config(capped)
                .run(work))
        .isEqualTo("run 3");
  }
}
