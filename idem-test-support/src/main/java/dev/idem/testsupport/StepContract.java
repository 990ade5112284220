package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.core.ExecutionContext;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.KeyReuseException;
import dev.idem.core.LeaseLostException;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.ResultCodec;
import dev.idem.core.StepInputChangedException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.RecordState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Steps through the engine on the backend's store ({@link ExecutionContext#step}): a step's result
 * outlives the failure of the work around it, and no rerun of the work (a retry, a takeover after a
 * crash, copies racing) runs a step twice. Every backend runs it through a {@code @Nested} class.
 *
 * <p>Longer than 400 lines because a backend extends one type for these promises; each test in it
 * is short and stands alone.
 */
public abstract class StepContract extends EngineContractSupport {

  private static final Fingerprint ORDER = Fingerprint.of("POST /orders", "order-1");

  /** A retryable failure of the work after its steps ran: the key is released, the steps kept. */
  static final class Unpaid extends RuntimeException {
    Unpaid() {
      super("the reply was lost after the charge", null, false, false);
    }
  }

  /** A terminal failure, stored and replayed. */
  static final class Declined extends RuntimeException {
    Declined(String message) {
      super(message);
    }
  }

  private IdempotencyConfig config() {
    return IdempotencyConfig.custom().terminalWhen(e -> e instanceof Declined).build();
  }

  @Test
  void aRetryAfterTheWorkFailedGetsTheStepsResultInsteadOfRunningItAgain() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger charges = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();

    for (int attempt = 0; attempt < 3; attempt++) {
      assertThatThrownBy(
              () ->
                  engine
                      .call(key, ORDER)
                      .config(config())
                      .run(
                          ctx -> {
                            runs.incrementAndGet();
                            ctx.step("charge", step -> "charge-" + charges.incrementAndGet());
                            throw new Unpaid();
                          }))
          .isInstanceOf(Unpaid.class);
    }
    String receipt =
        engine
            .call(key, ORDER)
            .config(config())
            .run(
                ctx ->
                    "paid by " + ctx.step("charge", step -> "charge-" + charges.incrementAndGet()));

    assertThat(runs).hasValue(3);
    assertThat(charges).as("the charge ran once for four runs of the work").hasValue(1);
    assertThat(receipt).isEqualTo("paid by charge-1");
  }

  @Test
  void aStepThatFailsRetryablyStoresNothingAndRunsAgainNextTime() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger tries = new AtomicInteger();

    assertThatThrownBy(
            () ->
                engine
                    .call(key, ORDER)
                    .config(config())
                    .run(
                        ctx ->
                            ctx.step(
                                "charge",
                                step -> {
                                  tries.incrementAndGet();
                                  throw new Unpaid();
                                })))
        .isInstanceOf(Unpaid.class);
    String second =
        engine
            .call(key, ORDER)
            .config(config())
            .run(ctx -> ctx.step("charge", step -> "charged on try " + tries.incrementAndGet()));

    assertThat(second).isEqualTo("charged on try 2");
  }

  @Test
  void anotherRequestUnderAReleasedKeyRunsItsOwnStepsAndNeverGetsTheFirstOnes() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger charges = new AtomicInteger();
    assertThatThrownBy(
            () ->
                engine
                    .call(key, Fingerprint.of("POST /pay", "100"))
                    .config(config())
                    .run(
                        ctx -> {
                          ctx.step("charge", step -> "charged 100 as " + charges.incrementAndGet());
                          throw new Unpaid();
                        }))
        .isInstanceOf(Unpaid.class);

    String other =
        engine
            .call(key, Fingerprint.of("POST /pay", "50"))
            .config(config())
            .run(ctx -> ctx.step("charge", step -> "charged 50 as " + charges.incrementAndGet()));

    assertThat(other).isEqualTo("charged 50 as 2");
    assertThatThrownBy(
            () -> engine.call(key, Fingerprint.of("POST /pay", "100")).run(ctx -> "never"))
        .as("the key now answers the second request")
        .isInstanceOf(KeyReuseException.class);
  }

  @Test
  void stepsDoNotCountAgainstTheCallersCap() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    IdempotencyConfig capped = IdempotencyConfig.from(config()).scopeCap(1).build();

    String receipt =
        engine
            .call(key, ORDER)
            .config(capped)
            .run(
                ctx ->
                    ctx.step("stock", s -> "reserved")
                        + " "
                        + ctx.step("charge", s -> "charged")
                        + " "
                        + ctx.step("ship", s -> "shipped"));

    assertThat(receipt).isEqualTo("reserved charged shipped");
  }

  /**
   * For stores shared between processes: a class with a public no-argument constructor that builds,
   * in a child JVM, a store on the same storage; null (the default) skips the crash test.
   */
  protected @Nullable Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
    return null;
  }

  @Test
  void aFlowKilledAtAnyPointIsFinishedByItsRetryWithEachEffectUnderOneKey() throws Exception {
    Class<? extends Supplier<IdempotencyStore>> factory = crashStoreFactory();
    assumeTrue(factory != null, "the store is not shared between processes");
    Idempotency engine = engine(store());
    IdempotencyConfig retry =
        IdempotencyConfig.custom()
            .lease(shortLease())
            .waitInProgress(Duration.ofSeconds(30))
            .build();
    for (String point : List.of("in:stock", "after:balance", "in:charge", "after:publish")) {
      IdempotencyKey key = newKey();
      List<String> effects = new ArrayList<>();
      try (ChildJvm child =
          ChildJvm.start(
              CrashingFlow.class,
              factory.getName(),
              key.scope(),
              key.value(),
              Long.toString(shortLease().toMillis()),
              point)) {
        child.awaitLine("at " + point, Duration.ofSeconds(60));
        assertThat(child.kill()).as("exit code after SIGKILL").isEqualTo(137);
        child.seen().stream().filter(line -> line.startsWith("effect ")).forEach(effects::add);
      }

      String answer =
          engine
              .call(key, CrashingFlow.REQUEST)
              .config(retry)
              .run(ctx -> CrashingFlow.run(ctx, "nowhere", effects::add));

      assertThat(answer).as("killed %s", point).isEqualTo(CrashingFlow.ANSWER);
      CrashingFlow.assertEachEffectOnce(point, effects);
    }
  }

  @Test
  void aStepsTerminalFailureIsStoredAndReplayedToTheNextRun() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger tries = new AtomicInteger();
    List<Throwable> seen = new ArrayList<>();

    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        engine
            .call(key, ORDER)
            .config(config())
            .run(
                ctx -> {
                  try {
                    return ctx.step(
                        "charge",
                        step -> {
                          tries.incrementAndGet();
                          throw new Declined("card declined");
                        });
                  } catch (RuntimeException declined) {
                    seen.add(declined);
                    throw new Unpaid();
                  }
                });
      } catch (Unpaid expected) {
        // the work gives up after the step and its key is released
      }
    }

    assertThat(tries).hasValue(1);
    assertThat(seen.get(0)).isInstanceOf(Declined.class);
    assertThat(seen.get(1))
        .isInstanceOf(ReplayedFailureException.class)
        .hasMessageContaining("card declined");
  }

  @Test
  void aRunThatReachesAStepWithOtherInputFailsAndTheStepDoesNotRunAgain() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger charges = new AtomicInteger();
    ResultCodec<String> text = ResultCodec.utf8();

    assertThatThrownBy(
            () ->
                engine
                    .call(key, ORDER)
                    .codec(text)
                    .config(config())
                    .run(
                        ctx -> {
                          ctx.step(
                              "charge",
                              Fingerprint.of("amount", "10"),
                              text,
                              step -> "charged " + charges.incrementAndGet());
                          throw new Unpaid();
                        }))
        .isInstanceOf(Unpaid.class);

    assertThatThrownBy(
            () ->
                engine
                    .call(key, ORDER)
                    .codec(text)
                    .config(config())
                    .run(
                        ctx ->
                            ctx.step(
                                "charge",
                                Fingerprint.of("amount", "1000"),
                                text,
                                step -> "charged " + charges.incrementAndGet())))
        .isInstanceOf(StepInputChangedException.class)
        .hasMessageContaining("'charge'")
        .hasMessageNotContaining("1000");
    assertThat(charges).hasValue(1);
    String same =
        engine
            .call(key, ORDER)
            .codec(text)
            .config(config())
            .run(
                ctx ->
                    ctx.step(
                        "charge",
                        Fingerprint.of("amount", "10"),
                        text,
                        step -> "charged " + charges.incrementAndGet()));
    assertThat(same).isEqualTo("charged 1");
  }

  @Test
  void aStepLeftRunningByARunThatDiedIsTakenOverOnceItsLeaseEnds() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    // a run that died in the middle of its step: the step's record held, nobody to finish it
    Lease dead =
        ((dev.idem.core.store.ClaimResult.Claimed)
                claim(ClaimRequest.of(key.step("charge", ORDER), Fingerprint.NONE, shortLease())))
            .lease();

    String receipt =
        engine
            .call(key, ORDER)
            .config(IdempotencyConfig.from(config()).lease(shortLease()).build())
            .run(ctx -> ctx.step("charge", step -> "charged at fence " + step.fence()));

    assertThat(receipt).startsWith("charged at fence ");
    assertThat(Long.parseLong(receipt.substring("charged at fence ".length())))
        .isGreaterThan(dead.fence());
  }

  @Test
  void anOperatorsEvictionOfTheKeyTakesItsStepsAndTheNextRunRunsThemAgain() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger charges = new AtomicInteger();
    engine
        .call(key, ORDER)
        .config(config())
        .run(ctx -> ctx.step("charge", step -> "charge-" + charges.incrementAndGet()));
    long fence = store().find(key).orElseThrow().fence();

    assertThat(store().evict(key, RecordState.COMPLETED, fence)).isTrue();
    String again =
        engine
            .call(key, ORDER)
            .config(config())
            .run(ctx -> ctx.step("charge", step -> "charge-" + charges.incrementAndGet()));

    assertThat(again).isEqualTo("charge-2");
  }

  @Test
  void stepsNestAndEachKeepsItsOwnResult() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger inner = new AtomicInteger();
    AtomicInteger outer = new AtomicInteger();
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        engine
            .call(key, ORDER)
            .config(config())
            .run(
                ctx ->
                    ctx.step(
                        "pay",
                        pay -> {
                          String hold = pay.step("hold", h -> "hold-" + inner.incrementAndGet());
                          if (outer.incrementAndGet() == 1) {
                            throw new Unpaid();
                          }
                          return hold + " then captured";
                        }));
      } catch (Unpaid expected) {
        // the outer step failed after its inner step stored its result
      }
    }
    assertThat(inner).hasValue(1);
    assertThat(outer).hasValue(2);
    assertThat(store().find(key.step("pay", ORDER).step("hold", Fingerprint.NONE))).isPresent();
  }

  @Test
  void aStepKeyIsTheSameOnEveryRunAndTiedToTheKeyAndTheName() {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    List<String> seen = new ArrayList<>();
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        engine
            .call(key, ORDER)
            .config(config())
            .run(
                ctx -> {
                  seen.add(ctx.stepKey("charge"));
                  seen.add(ctx.stepKey("refund"));
                  throw new Unpaid();
                });
      } catch (Unpaid expected) {
        // run again
      }
    }
    assertThat(seen.get(0))
        .isEqualTo(seen.get(2))
        .isEqualTo(key.step("charge", ORDER).digest())
        .matches("[0-9a-f]{64}");
    assertThat(seen.get(1)).isEqualTo(seen.get(3)).isNotEqualTo(seen.get(0));
    assertThat(seen.get(0)).doesNotContain(key.value());
    IdempotencyKey otherCaller = IdempotencyKey.of(key.scope() + "-bob", key.value());
    assertThat(otherCaller.step("charge").digest()).isNotEqualTo(seen.get(0));
  }

  @Test
  void aStepAfterTheLeaseWasLostIsRefusedBeforeItRuns() throws Exception {
    Idempotency engine = engine(store());
    IdempotencyKey key = newKey();
    AtomicInteger charges = new AtomicInteger();
    assertThatThrownBy(
            () ->
                engine
                    .call(key, ORDER)
                    .config(IdempotencyConfig.from(config()).lease(shortLease()).build())
                    .run(
                        ctx -> {
                          // an operator gives the key up while the work runs: the watchdog's next
                          // renewal finds the lease gone
                          store().evict(key, RecordState.IN_PROGRESS, ctx.fence());
                          ctx.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
                          return ctx.step("charge", step -> "charge-" + charges.incrementAndGet());
                        }))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("'charge'");
    assertThat(charges).hasValue(0);
  }

  @Test
  void aContextTheEngineDidNotMakeRefusesSteps() {
    ExecutionContext own =
        new ExecutionContext() {
          @Override
          public IdempotencyKey key() {
            return newKey();
          }

          @Override
          public long fence() {
            return 1;
          }

          @Override
          public boolean isLeaseLost() {
            return false;
          }

          @Override
          public java.util.concurrent.CompletionStage<@org.jspecify.annotations.Nullable Void>
              leaseLost() {
            return new java.util.concurrent.CompletableFuture<>();
          }
        };
    assertThatThrownBy(() -> own.step("charge", step -> "never"))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void copiesRacingWithFailingRetriesRunEachStepOncePerKey() throws Exception {
    Idempotency engine = engine(store());
    List<IdempotencyKey> keys = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      keys.add(newKey());
    }
    Map<IdempotencyKey, AtomicInteger> charges = new ConcurrentHashMap<>();
    Map<IdempotencyKey, AtomicInteger> shipments = new ConcurrentHashMap<>();
    IdempotencyConfig racing =
        IdempotencyConfig.from(config()).waitInProgress(Duration.ofSeconds(20)).build();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<String>> answers = new ArrayList<>();
      for (int copy = 0; copy < 24; copy++) {
        IdempotencyKey key = keys.get(copy % keys.size());
        answers.add(
            pool.submit(
                () -> {
                  for (int attempt = 0; ; attempt++) {
                    try {
                      return engine
                          .call(key, ORDER)
                          .config(racing)
                          .run(
                              ctx -> {
                                String charge =
                                    ctx.step(
                                        "charge",
                                        s -> "c" + counter(charges, key).incrementAndGet());
                                if (ThreadLocalRandom.current().nextInt(3) == 0) {
                                  throw new Unpaid();
                                }
                                String ship =
                                    ctx.step(
                                        "ship",
                                        s -> "s" + counter(shipments, key).incrementAndGet());
                                if (ThreadLocalRandom.current().nextInt(3) == 0) {
                                  throw new Unpaid();
                                }
                                return charge + ship;
                              });
                    } catch (Unpaid | RequestInProgressException e) {
                      if (attempt > 200) {
                        throw e;
                      }
                    }
                  }
                }));
      }
      for (Future<String> answer : answers) {
        assertThat(answer.get(60, TimeUnit.SECONDS)).isEqualTo("c1s1");
      }
    } finally {
      pool.shutdownNow();
    }
    for (IdempotencyKey key : keys) {
      assertThat(counter(charges, key)).as("charges of %s", key).hasValue(1);
      assertThat(counter(shipments, key)).as("shipments of %s", key).hasValue(1);
    }
  }

  private static AtomicInteger counter(
      Map<IdempotencyKey, AtomicInteger> counts, IdempotencyKey k) {
    return counts.computeIfAbsent(k, ignored -> new AtomicInteger());
  }
}
