package dev.idem.spring.autoconfigure;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import dev.idem.spring.metrics.MicrometerIdempotencyListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Counts engine calls in Micrometer ({@code idem.executions{operation, outcome}}) when Micrometer
 * is on the class path and the application defines no {@link IdempotencyListener} of its own.
 */
@AutoConfiguration(before = IdemAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
public class IdemMetricsAutoConfiguration {

  /**
   * The registry is looked up at the first call, not at startup, so that this works whichever order
   * the metrics auto-configuration runs in; without a registry nothing is counted.
   */
  @Bean
  @ConditionalOnMissingBean(IdempotencyListener.class)
  public IdempotencyListener idempotencyMetrics(ObjectProvider<MeterRegistry> registry) {
    return new IdempotencyListener() {
      private volatile IdempotencyListener delegate;

      @Override
      public void onOutcome(IdempotencyKey key, ExecutionOutcome outcome) {
        IdempotencyListener d = delegate;
        if (d == null) {
          MeterRegistry found = registry.getIfUnique();
          d = found == null ? NONE : new MicrometerIdempotencyListener(found);
          delegate = d;
        }
        d.onOutcome(key, outcome);
      }
    };
  }
}
