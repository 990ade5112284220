package dev.idem.spring.autoconfigure;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.ExpiredRecordsPurge;
import dev.idem.spring.IdempotencyStoreDecorator;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.aop.ResumableMethods;
import dev.idem.spring.metrics.MicrometerIdempotencyListener;
import dev.idem.spring.metrics.ObservingIdempotencyListener;
import dev.idem.spring.metrics.TimedIdempotencyStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters and observations, when Micrometer is on the class path: engine calls ({@code
 * idem.executions{operation, outcome}}, beside any {@link IdempotencyListener} of the
 * application's), one {@code idem.execution} observation per call with an {@code idem.store.call}
 * observation per store call inside it (so traces show claim and complete), store calls timed as
 * {@code idem.store.calls{call, outcome}} (through a {@link TimedIdempotencyStore} around the
 * engine's store) and the work running now ({@code idem.inflight}).
 */
@AutoConfiguration(before = IdemAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
public class IdemMetricsAutoConfiguration {

  /** The in-flight gauge's name. */
  public static final String IN_FLIGHT = "idem.inflight";

  /**
   * The registry is looked up at the first call, not at startup, so that this works whichever order
   * the metrics auto-configuration runs in; without a registry nothing is counted.
   */
  @Bean
  @ConditionalOnMissingBean(name = "idempotencyMetrics")
  public IdempotencyListener idempotencyMetrics(ObjectProvider<MeterRegistry> registry) {
    return new IdempotencyListener() {
      private volatile @Nullable IdempotencyListener delegate;

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

  /** One observation per call, the registry looked up at the first call, as the meters'. */
  @Bean
  @ConditionalOnMissingBean(name = "idempotencyObservations")
  public IdempotencyListener idempotencyObservations(
      ObjectProvider<ObservationRegistry> registry, ObjectProvider<IdempotencyStore> store) {
    return new ObservingIdempotencyListener(registry::getIfUnique, store::getIfUnique);
  }

  @Bean
  @ConditionalOnMissingBean(name = "idemStoreTimers")
  public IdempotencyStoreDecorator idemStoreTimers(
      ObjectProvider<MeterRegistry> registry, ObjectProvider<ObservationRegistry> observations) {
    return store ->
        TimedIdempotencyStore.wrap(store, registry::getIfUnique, observations::getIfUnique);
  }

  /** Counts the records the scheduled purge deleted, as {@code idem.store.purged}. */
  @Bean
  @ConditionalOnMissingBean(name = "idemPurgedCounter")
  public SmartInitializingSingleton idemPurgedCounter(
      ObjectProvider<MeterRegistry> registry, ObjectProvider<ExpiredRecordsPurge> purge) {
    return () -> {
      MeterRegistry meters = registry.getIfUnique();
      ExpiredRecordsPurge job = purge.getIfAvailable();
      if (meters != null && job != null) {
        FunctionCounter.builder("idem.store.purged", job, ExpiredRecordsPurge::purged)
            .description("Expired idempotency records deleted by the scheduled purge")
            .register(meters);
      }
    };
  }

  /**
   * Counts what the completer's passes did with the calls of resumable methods, as {@code
   * idem.completer.calls} tagged by outcome: finished, replayed, busy, failed, abandoned, dropped,
   * and error, which counts the passes that failed.
   */
  @Bean
  @ConditionalOnMissingBean(name = "idemCompleterCounters")
  public SmartInitializingSingleton idemCompleterCounters(
      ObjectProvider<MeterRegistry> registry, ObjectProvider<ResumableMethods> resumables) {
    return () -> {
      MeterRegistry meters = registry.getIfUnique();
      ResumableMethods methods = resumables.getIfAvailable();
      if (meters != null && methods != null) {
        for (String outcome :
            List.of("finished", "replayed", "busy", "failed", "abandoned", "dropped", "error")) {
          FunctionCounter.builder("idem.completer.calls", methods, m -> m.count(outcome))
              .tag("outcome", outcome)
              .description("Calls of resumable methods that the completer's passes took")
              .register(meters);
        }
      }
    };
  }

  /** Registers the gauge once every singleton, the registry among them, exists. */
  @Bean
  @ConditionalOnMissingBean(name = "idemInFlightGauge")
  public SmartInitializingSingleton idemInFlightGauge(
      ObjectProvider<MeterRegistry> registry, ObjectProvider<InFlightWork> inFlight) {
    return () -> {
      MeterRegistry meters = registry.getIfUnique();
      InFlightWork work = inFlight.getIfAvailable();
      if (meters != null && work != null) {
        Gauge.builder(IN_FLIGHT, work, InFlightWork::count)
            .description("Idempotent work running now under a claimed key")
            .strongReference(true)
            .register(meters);
      }
    };
  }
}
