package dev.idem.spring.metrics;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Counts every call through the engine as {@code idem.executions{operation, outcome}}, where
 * outcome is one of executed, replayed, in_progress, mismatch, invalid_key, unknown_token,
 * lease_lost, store_error, store_full; and the runs of steps ({@link IdempotencyKey#isStep()}) the
 * same way as {@code idem.steps{operation, outcome}}, where executed means the step ran and
 * replayed that a rerun got its stored result.
 *
 * <p>The operation tag comes from the key's scope through {@code operationOf}; it must not carry
 * the caller's identity (a user name in a tag makes one time series per user). The default takes
 * the scope up to its first {@code '|'}, the separator the starter puts between operation and
 * caller.
 */
public final class MicrometerIdempotencyListener implements IdempotencyListener {

  /** The meter's name. */
  public static final String METER = "idem.executions";

  /** The meter of steps' runs. */
  public static final String STEP_METER = "idem.steps";

  private final MeterRegistry registry;
  private final Function<IdempotencyKey, String> operationOf;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  /** Counts with the default operation tag (the scope up to its first {@code '|'}). */
  public MicrometerIdempotencyListener(MeterRegistry registry) {
    this(registry, MicrometerIdempotencyListener::operationBeforeBar);
  }

  public MicrometerIdempotencyListener(
      MeterRegistry registry, Function<IdempotencyKey, String> operationOf) {
    this.registry = registry;
    this.operationOf = operationOf;
  }

  @Override
  public void onOutcome(IdempotencyKey key, ExecutionOutcome outcome) {
    String operation = operationOf.apply(key);
    String tag = outcome.name().toLowerCase(Locale.ROOT);
    boolean step = key.isStep();
    counters
        .computeIfAbsent(
            (step ? "s\n" : "c\n") + operation + '\n' + tag,
            k ->
                Counter.builder(step ? STEP_METER : METER)
                    .description(
                        step
                            ? "Steps of calls through the idempotency engine, by how they ended"
                            : "Calls through the idempotency engine, by how they ended")
                    .tag("operation", operation)
                    .tag("outcome", tag)
                    .register(registry))
        .increment();
  }

  static String operationBeforeBar(IdempotencyKey key) {
    String scope = key.scope();
    int bar = scope.indexOf('|');
    return bar < 0 ? scope : scope.substring(0, bar);
  }
}
