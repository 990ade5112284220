package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.KeyReuseException;
import dev.idem.core.ResultCodec;
import dev.idem.core.resume.Completer;
import dev.idem.core.resume.ResumableOperation;
import dev.idem.core.resume.ResumableWork;
import dev.idem.core.resume.ResumeEntry;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.IdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The completer on the backend's store and resume log: a call nobody came back for is finished from
 * the steps that ended, a call in flight is left alone, an ended one is not run again, a refused
 * request never runs, and a call that keeps failing is abandoned for an operator. Every backend
 * runs it through a {@code @Nested} class.
 *
 * <p>Longer than 400 lines because a backend extends one type for these promises; each test in it
 * is short and stands alone.
 */
public abstract class CompleterContract extends EngineContractSupport {

  /** A retryable failure: the gateway did not answer. */
  static final class GatewayDown extends RuntimeException {
    GatewayDown() {
      super("the gateway did not answer", null, false, false);
    }
  }

  /** A terminal failure: the card was declined. */
  static final class Declined extends RuntimeException {
    Declined() {
      super("declined");
    }
  }

  /** The resume log under test, on the same storage as {@link #store()}. */
  protected abstract ResumeLog log();

  /**
   * For storage shared between processes: classes with a public no-argument constructor that build,
   * in a child JVM, a store and a resume log on the same storage; null (the default) skips the
   * crash test.
   */
  protected @Nullable Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
    return null;
  }

  /** See {@link #crashStoreFactory()}. */
  protected @Nullable Class<? extends Supplier<ResumeLog>> crashLogFactory() {
    return null;
  }

  private final String name = "pay-" + UUID.randomUUID();

  private IdempotencyConfig config() {
    return IdempotencyConfig.custom()
        .lease(shortLease())
        .terminalWhen(e -> e instanceof Declined)
        .build();
  }

  private Completer completer(Idempotency engine, int maxAttempts) {
    return Completer.builder(engine, log())
        .maxAttempts(maxAttempts)
        .backoff(shortLease(), shortLease())
        .build();
  }

  private ResumableOperation<String, String> register(
      Completer completer, ResumableWork<String, String> work) {
    return completer.register(name, ResultCodec.utf8(), ResultCodec.utf8(), config(), work);
  }

  private void waitOut() {
    time().pass(shortLease().plus(margin()));
  }

  @Test
  void aCallWhoseClientGaveUpIsFinishedFromItsStepsByTheCompleter() {
    Idempotency engine = engine(store());
    Completer completer = completer(engine, 5);
    AtomicInteger charges = new AtomicInteger();
    AtomicInteger publishes = new AtomicInteger();
    AtomicBoolean brokerUp = new AtomicBoolean(false);
    ResumableOperation<String, String> pay =
        register(
            completer,
            (order, ctx) -> {
              String charge =
                  ctx.step("charge", s -> "charged " + order + " #" + charges.incrementAndGet());
              String sent =
                  ctx.step(
                      "publish",
                      s -> {
                        if (!brokerUp.get()) {
                          throw new GatewayDown();
                        }
                        return "sent #" + publishes.incrementAndGet();
                      });
              return charge + ", " + sent;
            });

    assertThatThrownBy(() -> pay.execute("order-1", "order-1")).isInstanceOf(GatewayDown.class);
    assertThat(completer.runOnce().taken()).as("not due before its lease").isZero();
    brokerUp.set(true);
    waitOut();

    Completer.Pass pass = completer.runOnce();

    assertThat(pass.finished()).isEqualTo(1);
    assertThat(charges).hasValue(1);
    assertThat(publishes).hasValue(1);
    assertThat(pay.executeWithStatus(pay.key("order-1"), "order-1"))
        .satisfies(
            e -> {
              assertThat(e.replayed()).isTrue();
              assertThat(e.value()).isEqualTo("charged order-1 #1, sent #1");
            });
    waitOut();
    assertThat(completer.runOnce().taken()).as("an ended call leaves the log").isZero();
  }

  @Test
  void aCallThatEndedLeavesNothingForTheCompleter() {
    Idempotency engine = engine(store());
    Completer completer = completer(engine, 5);
    AtomicInteger runs = new AtomicInteger();
    ResumableOperation<String, String> pay =
        register(
            completer,
            (order, ctx) -> {
              if (order.startsWith("declined")) {
                runs.incrementAndGet();
                throw new Declined();
              }
              return "paid " + order + " #" + runs.incrementAndGet();
            });

    assertThat(pay.execute("a", "order-a")).isEqualTo("paid order-a #1");
    assertThatThrownBy(() -> pay.execute("b", "declined-b")).isInstanceOf(Declined.class);
    waitOut();

    assertThat(completer.runOnce().taken()).isZero();
    assertThat(runs).hasValue(2);
  }

  @Test
  void anEntryLeftBehindByAnEndedCallIsReplayedAndRemovedNotRunAgain() {
    Idempotency engine = engine(store());
    Completer completer = completer(engine, 5);
    AtomicInteger runs = new AtomicInteger();
    ResumableOperation<String, String> pay =
        register(completer, (order, ctx) -> "paid #" + runs.incrementAndGet());
    assertThat(pay.execute("a", "order-a")).isEqualTo("paid #1");
    // as if the call's process died between storing its answer and removing its entry
    log().remember(entryOf(pay, "a", "order-a"), Duration.ZERO, Duration.ofMinutes(5));

    Completer.Pass pass = completer.runOnce();

    assertThat(pass.replayed()).isEqualTo(1);
    assertThat(runs).hasValue(1);
    assertThat(completer.runOnce().taken()).isZero();
  }

  @Test
  void aCallInFlightIsLeftAloneAndARequestWhoseKeyAnotherHoldsIsDropped() {
    Idempotency engine = engine(store());
    Completer completer = completer(engine, 5);
    AtomicInteger runs = new AtomicInteger();
    ResumableOperation<String, String> pay =
        register(completer, (order, ctx) -> "paid " + order + " #" + runs.incrementAndGet());
    ResumeEntry running = entryOf(pay, "running", "order-1");
    claim(ClaimRequest.of(running.key(), running.fingerprint(), longLease()));
    log().remember(running, Duration.ZERO, Duration.ofMinutes(5));
    // the key was given up by order-2's request, then taken by order-3's, whose process holds it
    ResumeEntry refused = entryOf(pay, "taken", "order-2");
    claim(
        ClaimRequest.of(
            refused.key(), entryOf(pay, "taken", "order-3").fingerprint(), longLease()));
    log().remember(refused, Duration.ZERO, Duration.ofMinutes(5));

    Completer.Pass pass = completer.runOnce();

    assertThat(pass.busy()).isEqualTo(1);
    assertThat(pass.dropped()).isEqualTo(1);
    assertThat(runs).hasValue(0);
    assertThat(completer.runOnce().taken()).as("the dropped entry is gone").isZero();
  }

  @Test
  void aKeyReusedByACallInsideTheWorkIsTheWorksFailureNotARefusalOfTheCall() {
    Idempotency engine = engine(store());
    Completer completer = completer(engine, 5);
    IdempotencyKey inner = newKey();
    engine.call(inner, Fingerprint.of("inner", "a")).run(ctx -> "a");
    AtomicBoolean reusing = new AtomicBoolean(true);
    ResumableOperation<String, String> pay =
        register(
            completer,
            (order, ctx) ->
                reusing.get()
                    ? engine.call(inner, Fingerprint.of("inner", "b")).run(c -> "b")
                    : "paid " + order);
    assertThatThrownBy(() -> pay.execute("a", "order-a")).isInstanceOf(KeyReuseException.class);
    waitOut();

    assertThat(completer.runOnce().failed()).as("counted, not dropped").isEqualTo(1);
    reusing.set(false);
    waitOut();
    assertThat(completer.runOnce().finished()).isEqualTo(1);
    assertThat(pay.execute("a", "order-a")).isEqualTo("paid order-a");
  }

  @Test
  void aRunThatDiesOfAnErrorIsCountedAndAbandonedNotTriedForEver() {
    Idempotency engine = engine(store());
    Completer completer = completer(engine, 2);
    AtomicInteger runs = new AtomicInteger();
    ResumableOperation<String, String> pay =
        register(
            completer,
            (order, ctx) -> {
              if (runs.incrementAndGet() > 1) {
                throw new NoClassDefFoundError("dev/example/RemovedByTheDeploy");
              }
              throw new GatewayDown();
            });
    assertThatThrownBy(() -> pay.execute("a", "order-a")).isInstanceOf(GatewayDown.class);

    waitOut();
    assertThat(completer.runOnce().failed()).isEqualTo(1);
    waitOut();
    assertThat(completer.runOnce().abandoned()).isEqualTo(1);
    assertThat(runs).hasValue(3);
  }

  @Test
  void theCompleterNeverRunsACallWithoutItsClaimEvenWhenTheOperationFailsOpen() {
    FaultInjectingStore faulty = new FaultInjectingStore(store());
    Idempotency engine = engine(faulty);
    Completer completer = completer(engine, 5);
    AtomicInteger runs = new AtomicInteger();
    AtomicBoolean gatewayUp = new AtomicBoolean(false);
    ResumableOperation<String, String> pay =
        completer.register(
            name,
            ResultCodec.utf8(),
            ResultCodec.utf8(),
            IdempotencyConfig.from(config()).failOpen(true).build(),
            (order, ctx) -> {
              runs.incrementAndGet();
              if (!gatewayUp.get()) {
                throw new GatewayDown();
              }
              return "paid " + order;
            });
    assertThatThrownBy(() -> pay.execute("a", "order-a")).isInstanceOf(GatewayDown.class);
    gatewayUp.set(true);
    waitOut();
    faulty.failNext(FaultInjectingStore.Operation.CLAIM, 1);

    Completer.Pass pass = completer.runOnce();

    assertThat(pass.busy()).as("left for a later pass, no attempt counted").isEqualTo(1);
    assertThat(runs).as("the work did not run unclaimed").hasValue(1);
  }

  @Test
  void anInputThatDoesNotReadBackAsWrittenIsRefusedBeforeTheCallClaimsItsKey() {
    Idempotency engine = engine(store());
    Completer completer = completer(engine, 5);
    AtomicInteger runs = new AtomicInteger();
    ResultCodec<String> lossy =
        new ResultCodec<>() {
          @Override
          public byte[] encode(String value) {
            return value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
          }

          @Override
          public String decode(byte[] bytes) {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8).trim();
          }
        };
    ResumableOperation<String, String> pay =
        completer.register(
            name,
            lossy,
            ResultCodec.utf8(),
            config(),
            (order, ctx) -> "paid #" + runs.incrementAndGet());

    assertThatThrownBy(() -> pay.execute("a", " order-a "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not read back");
    assertThat(runs).hasValue(0);
    assertThat(pay.execute("a", "order-a")).as("the key was never claimed").isEqualTo("paid #1");
  }

  @Test
  void aCallThatKeepsFailingIsAbandonedAndRunsAgainOnlyWhenAnOperatorRetriesIt() {
    Idempotency engine = engine(store());
    Completer completer = completer(engine, 2);
    AtomicInteger runs = new AtomicInteger();
    AtomicBoolean gatewayUp = new AtomicBoolean(false);
    ResumableOperation<String, String> pay =
        register(
            completer,
            (order, ctx) -> {
              runs.incrementAndGet();
              if (!gatewayUp.get()) {
                throw new GatewayDown();
              }
              return "paid " + order;
            });
    assertThatThrownBy(() -> pay.execute("a", "order-a")).isInstanceOf(GatewayDown.class);

    waitOut();
    assertThat(completer.runOnce().failed()).isEqualTo(1);
    waitOut();
    assertThat(completer.runOnce().abandoned()).isEqualTo(1);
    waitOut();
    assertThat(completer.runOnce().taken()).isZero();
    assertThat(runs).hasValue(3);
    List<ResumeEntry> abandoned = completer.abandoned(name, 10);
    assertThat(abandoned).singleElement().satisfies(e -> assertThat(e.attempts()).isEqualTo(2));

    gatewayUp.set(true);
    assertThat(completer.retry(abandoned.get(0))).isTrue();
    assertThat(completer.runOnce().finished()).isEqualTo(1);
    assertThat(pay.execute("a", "order-a")).isEqualTo("paid order-a");
    assertThat(runs).hasValue(4);
    assertThat(completer.abandoned(name, 10)).isEmpty();
  }

  @Test
  void aDroppedCallIsNotRunByTheCompleterButItsClientMayStillRetry() {
    Idempotency engine = engine(store());
    Completer completer = completer(engine, 5);
    AtomicInteger runs = new AtomicInteger();
    ResumableOperation<String, String> pay =
        register(
            completer,
            (order, ctx) -> {
              if (runs.incrementAndGet() == 1) {
                throw new GatewayDown();
              }
              return "paid " + order;
            });
    assertThatThrownBy(() -> pay.execute("a", "order-a")).isInstanceOf(GatewayDown.class);
    assertThat(completer.drop(entryOf(pay, "a", "order-a"))).isTrue();
    waitOut();

    assertThat(completer.runOnce().taken()).isZero();
    assertThat(runs).hasValue(1);
    assertThat(pay.execute("a", "order-a")).isEqualTo("paid order-a");
  }

  @Test
  void completersOnTwoNodesFinishACallOnce() {
    Idempotency engine = engine(store());
    Completer one = completer(engine, 5);
    Completer two = completer(engine(store()), 5);
    AtomicInteger charges = new AtomicInteger();
    AtomicBoolean failing = new AtomicBoolean(true);
    ResumableWorkFactory work =
        () ->
            (order, ctx) ->
                ctx.step(
                    "charge",
                    s -> {
                      if (failing.get()) {
                        throw new GatewayDown();
                      }
                      return "charged #" + charges.incrementAndGet();
                    });
    ResumableOperation<String, String> pay = register(one, work.create());
    register(two, work.create());
    for (int i = 0; i < 5; i++) {
      String order = "order-" + i;
      assertThatThrownBy(() -> pay.execute(order, order)).isInstanceOf(GatewayDown.class);
    }
    failing.set(false);
    waitOut();

    Completer.Pass first = one.runOnce();
    Completer.Pass second = two.runOnce();

    assertThat(first.finished() + second.finished()).isEqualTo(5);
    assertThat(charges).hasValue(5);
  }

  /** Builds the same work for each node's registration. */
  @FunctionalInterface
  private interface ResumableWorkFactory {
    ResumableWork<String, String> create();
  }

  @Test
  void aFlowKilledAtAnyPointIsFinishedByTheCompleterWithEachEffectOnce() throws Exception {
    Class<? extends Supplier<IdempotencyStore>> stores = crashStoreFactory();
    Class<? extends Supplier<ResumeLog>> logs = crashLogFactory();
    assumeTrue(stores != null && logs != null, "the storage is not shared between processes");
    Idempotency engine = engine(store());
    Completer completer = completer(engine, 5);
    List<String> effects = new ArrayList<>();
    ResumableOperation<String, String> flow =
        completer.register(
            name,
            ResultCodec.utf8(),
            ResultCodec.utf8(),
            IdempotencyConfig.custom().lease(shortLease()).build(),
            (order, ctx) -> CrashingFlow.run(ctx, "nowhere", effects::add));
    // a point inside a step and one between steps; the step suite's crash test takes all four
    for (String point : List.of("after:balance", "in:charge")) {
      effects.clear();
      String key = "order-" + UUID.randomUUID();
      try (ChildJvm child =
          ChildJvm.start(
              CrashingFlow.class,
              stores.getName(),
              flow.scope(),
              key,
              Long.toString(shortLease().toMillis()),
              point,
              logs.getName(),
              name)) {
        child.awaitLine("at " + point, Duration.ofSeconds(60));
        assertThat(child.kill()).as("exit code after SIGKILL").isEqualTo(137);
        child.seen().stream().filter(line -> line.startsWith("effect ")).forEach(effects::add);
      }
      waitOut();

      Completer.Pass pass = completer.runOnce();

      assertThat(pass.finished()).as("killed %s", point).isEqualTo(1);
      assertThat(flow.executeWithStatus(flow.key(key), CrashingFlow.ORDER).value())
          .isEqualTo(CrashingFlow.ANSWER);
      CrashingFlow.assertEachEffectOnce(point, effects);
    }
  }

  private static ResumeEntry entryOf(
      ResumableOperation<String, String> operation, String key, String input) {
    return operation.entryOf(operation.key(key), input);
  }
}
