package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Deferral;
import dev.idem.core.ExecutionOutcome;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.ResultCodec;
import dev.idem.core.Work;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.RecordChangeNotifier;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.metrics.MicrometerIdempotencyListener;
import dev.idem.spring.metrics.TimedIdempotencyStore;
import dev.idem.testsupport.FaultInjectingStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class IdemMetricsAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdemMetricsAutoConfiguration.class, IdemAutoConfiguration.class));

  @Test
  void countsCallsInTheApplicationsRegistry() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              Idempotency engine = context.getBean(Idempotency.class);
              IdempotencyKey key = IdempotencyKey.of("orders.create|alice", "k1");
              engine.call(key, Fingerprint.NONE).run(ctx -> "x");
              engine.call(key, Fingerprint.NONE).run(ctx -> "x");
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(
                      registry
                          .get(MicrometerIdempotencyListener.METER)
                          .tag("operation", "orders.create")
                          .tag("outcome", "replayed")
                          .counter()
                          .count())
                  .isEqualTo(1);
            });
  }

  private static double timed(MeterRegistry registry, String call, String outcome) {
    return registry
        .get(TimedIdempotencyStore.METER)
        .tag("call", call)
        .tag("outcome", outcome)
        .timer()
        .count();
  }

  @Test
  void timesEveryStoreCallByCallAndOutcome() {
    FaultInjectingStore store = new FaultInjectingStore(new InMemoryIdempotencyStore());
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(IdempotencyStore.class, () -> store)
        .run(
            context -> {
              Idempotency engine = context.getBean(Idempotency.class);
              IdempotencyKey key = IdempotencyKey.of("orders.create|alice", "k2");
              engine.call(key, Fingerprint.NONE).run(ctx -> "x");
              engine.call(key, Fingerprint.NONE).run(ctx -> "x");
              store.failNext(FaultInjectingStore.Operation.CLAIM, 1);
              IdempotencyKey other = IdempotencyKey.of("orders.create|alice", "k3");
              assertThatThrownBy(() -> engine.call(other, Fingerprint.NONE).run(ctx -> "y"))
                  .isInstanceOf(IdempotencyStoreException.class);

              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(timed(registry, "claim", "ok")).isEqualTo(2);
              assertThat(timed(registry, "complete", "ok")).isEqualTo(1);
              assertThat(timed(registry, "claim", "error")).isEqualTo(1);
            });
  }

  @Test
  void timesTheClaimsOfABatchAsOneCallAndPassesThemOnTogether() {
    AtomicInteger together = new AtomicInteger();
    IdempotencyStore store =
        new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
          @Override
          public List<CompletableFuture<ClaimResult>> claimAll(List<ClaimRequest> requests) {
            together.addAndGet(requests.size());
            return delegate().claimAll(requests);
          }
        };
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(IdempotencyStore.class, () -> store)
        .run(
            context -> {
              Idempotency engine = context.getBean(Idempotency.class);
              Map<IdempotencyKey, Fingerprint> calls = new LinkedHashMap<>();
              calls.put(IdempotencyKey.of("orders.create|alice", "b1"), Fingerprint.NONE);
              calls.put(IdempotencyKey.of("orders.create|alice", "b2"), Fingerprint.NONE);
              engine.executeEach(
                  calls,
                  ResultCodec.utf8(),
                  ctx -> "x",
                  IdempotencyConfig.ofDefaults(),
                  Deferral.NONE);

              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(together).as("the store got both claims in one call").hasValue(2);
              assertThat(timed(registry, "claim-all", "ok")).isEqualTo(1);
              // each outcome's store call leaves as its work ends
              assertThat(timed(registry, "complete", "ok")).isEqualTo(2);
            });
  }

  @Test
  void timesTheClaimsOfAsynchronousCallsToo() {
    FaultInjectingStore store = new FaultInjectingStore(new InMemoryIdempotencyStore());
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(IdempotencyStore.class, () -> store)
        .run(
            context -> {
              Idempotency engine = context.getBean(Idempotency.class);
              IdempotencyKey key = IdempotencyKey.of("orders.create|alice", "k4");
              engine
                  .call(key, Fingerprint.NONE)
                  .config(IdempotencyConfig.ofDefaults())
                  .runAsync(
                      ctx -> CompletableFuture.completedFuture("x"), ForkJoinPool.commonPool())
                  .get(10, TimeUnit.SECONDS);
              store.failNext(FaultInjectingStore.Operation.CLAIM, 1);
              assertThatThrownBy(
                      () ->
                          engine
                              .call(
                                  IdempotencyKey.of("orders.create|alice", "k5"), Fingerprint.NONE)
                              .config(IdempotencyConfig.ofDefaults())
                              .runAsync(
                                  ctx -> CompletableFuture.completedFuture("y"),
                                  ForkJoinPool.commonPool())
                              .get(10, TimeUnit.SECONDS))
                  .isInstanceOf(ExecutionException.class)
                  .cause()
                  .isInstanceOf(IdempotencyStoreException.class);

              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(timed(registry, "claim", "ok")).isEqualTo(1);
              assertThat(timed(registry, "claim", "error")).isEqualTo(1);
            });
  }

  @Test
  void theTimedStoreKeepsTheStoresChangeNoticesAndTheStoreBeanStaysAsItIs() {
    FaultInjectingStore store = new FaultInjectingStore(new InMemoryIdempotencyStore());
    runner
        .withBean(IdempotencyStore.class, () -> store)
        .run(
            context -> {
              IdempotencyStore used = context.getBean(Idempotency.class).store();
              assertThat(used).isInstanceOf(TimedIdempotencyStore.class);
              IdempotencyKey key = IdempotencyKey.of("notices", "k");
              java.util.concurrent.CountDownLatch changed =
                  new java.util.concurrent.CountDownLatch(1);
              try (RecordChangeNotifier.Subscription sub = used.onChange(key, changed::countDown)) {
                context.getBean(Idempotency.class).call(key, Fingerprint.NONE).run(ctx -> "x");
                assertThat(changed.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
              }
              assertThat(used.capabilities()).isEqualTo(store.capabilities());
              assertThat(context.getBean(IdempotencyStore.class)).isSameAs(store);
            });
  }

  @Test
  void theInFlightGaugeCountsWorkWhileItRuns() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              InFlightWork inFlight = context.getBean(InFlightWork.class);
              Idempotency engine = context.getBean(Idempotency.class);
              Work<Double, RuntimeException> work =
                  inFlight.track(
                      ctx -> registry.get(IdemMetricsAutoConfiguration.IN_FLIGHT).gauge().value());
              double during =
                  engine
                      .call(IdempotencyKey.of("gauge", "k1"), Fingerprint.NONE)
                      .codec(codec())
                      .run(work);
              assertThat(during).isEqualTo(1);
              assertThat(registry.get(IdemMetricsAutoConfiguration.IN_FLIGHT).gauge().value())
                  .isZero();
            });
  }

  private static ResultCodec<Double> codec() {
    return new ResultCodec<>() {
      @Override
      public byte[] encode(Double value) {
        return ResultCodec.utf8().encode(value.toString());
      }

      @Override
      public Double decode(byte[] bytes) {
        return Double.valueOf(ResultCodec.utf8().decode(bytes));
      }
    };
  }

  @Test
  void aListenerOfTheApplicationsOwnIsToldBesideTheMeters() {
    List<ExecutionOutcome> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
    IdempotencyListener own = (key, outcome) -> heard.add(outcome);
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean("ownListener", IdempotencyListener.class, () -> own)
        .run(
            context -> {
              Idempotency engine = context.getBean(Idempotency.class);
              IdempotencyKey key = IdempotencyKey.of("orders.create|bob", "k-own");
              engine.call(key, Fingerprint.NONE).run(ctx -> "x");
              assertThat(heard).containsExactly(ExecutionOutcome.EXECUTED);
              assertThat(
                      context
                          .getBean(MeterRegistry.class)
                          .get(MicrometerIdempotencyListener.METER)
                          .tag("outcome", "executed")
                          .counter()
                          .count())
                  .isEqualTo(1);
            });
  }
}
