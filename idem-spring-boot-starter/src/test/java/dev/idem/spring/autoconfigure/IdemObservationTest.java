package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.RequestInProgressException;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Each call through the engine is one {@code idem.execution} observation with its store calls as
 * children, seen here as the spans of Micrometer Tracing's test tracer.
 */
class IdemObservationTest {

  private final SimpleTracer tracer = new SimpleTracer();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdemMetricsAutoConfiguration.class, IdemAutoConfiguration.class))
          .withBean(
              ObservationRegistry.class,
              () -> {
                ObservationRegistry registry = ObservationRegistry.create();
                registry
                    .observationConfig()
                    .observationHandler(new DefaultTracingObservationHandler(tracer));
                return registry;
              });

  @Test
  void aCallIsOneSpanWithItsClaimAndCompletionInside() {
    runner.run(
        context -> {
          Idempotency engine = context.getBean(Idempotency.class);
          IdempotencyKey key = IdempotencyKey.of("payments|alice", "k1");
          engine.call(key, Fingerprint.NONE).run(ctx -> "paid");

          SimpleSpan call = only("idem payments");
          assertThat(call.getTags())
              .containsEntry("operation", "payments")
              .containsEntry("store", "memory")
              .containsEntry("outcome", "executed")
              .containsEntry("idem.key.digest", key.digest())
              .doesNotContainValue("alice");
          assertThat(only("idem store claim").getParentId()).isEqualTo(call.getSpanId());
          assertThat(only("idem store complete").getParentId()).isEqualTo(call.getSpanId());
          assertThat(only("idem store claim").getTags()).containsEntry("call", "claim");
        });
  }

  @Test
  void aReplayAndARefusalAreSpansWithTheirOutcome() {
    runner.run(
        context -> {
          Idempotency engine = context.getBean(Idempotency.class);
          IdempotencyKey key = IdempotencyKey.of("orders|bob", "k2");
          engine.call(key, Fingerprint.NONE).run(ctx -> "made");
          engine.call(key, Fingerprint.NONE).run(ctx -> "made");
          IdempotencyKey busy = IdempotencyKey.of("orders|bob", "k3");
          CountDownLatch running = new CountDownLatch(1);
          CountDownLatch release = new CountDownLatch(1);
          ExecutorService first = Executors.newSingleThreadExecutor();
          try {
            Future<String> holder =
                first.submit(
                    () ->
                        engine
                            .call(busy, Fingerprint.NONE)
                            .run(
                                ctx -> {
                                  running.countDown();
                                  release.await();
                                  return "late";
                                }));
            running.await();
            try {
              engine.call(busy, Fingerprint.NONE).run(ctx -> "again");
            } catch (RequestInProgressException expected) {
              // the refusal is what this call is for
            }
            release.countDown();
            holder.get();
          } finally {
            first.shutdownNow();
          }

          assertThat(outcomes("idem orders"))
              .containsExactlyInAnyOrder("executed", "replayed", "in_progress", "executed");
        });
  }

  @Test
  void withoutARegistryNothingIsObservedAndCallsStillRun() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(IdemMetricsAutoConfiguration.class, IdemAutoConfiguration.class))
        .run(
            context -> {
              Idempotency engine = context.getBean(Idempotency.class);
              String answer =
                  engine
                      .call(IdempotencyKey.of("orders|carol", "k4"), Fingerprint.NONE)
                      .run(ctx -> "made");
              assertThat(answer).isEqualTo("made");
              assertThat(tracer.getSpans()).isEmpty();
            });
  }

  private SimpleSpan only(String name) {
    List<SimpleSpan> spans =
        tracer.getSpans().stream().filter(s -> name.equals(s.getName())).toList();
    assertThat(spans).as("spans named " + name).hasSize(1);
    return spans.get(0);
  }

  private List<String> outcomes(String name) {
    return tracer.getSpans().stream()
        .filter(s -> name.equals(s.getName()))
        .map(s -> s.getTags().get("outcome"))
        .toList();
  }
}
