package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.ResultCodec;
import dev.idem.spring.metrics.MicrometerIdempotencyListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
              engine.execute(key, Fingerprint.NONE, ResultCodec.utf8(), ctx -> "x");
              engine.execute(key, Fingerprint.NONE, ResultCodec.utf8(), ctx -> "x");
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

  @Test
  void backsOffForAListenerOfTheApplicationsOwn() {
    IdempotencyListener own = (key, outcome) -> {};
    runner
        .withBean(IdempotencyListener.class, () -> own)
        .run(context -> assertThat(context.getBean(IdempotencyListener.class)).isSameAs(own));
  }
}
