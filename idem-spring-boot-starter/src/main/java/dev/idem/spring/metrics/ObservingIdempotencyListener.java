package dev.idem.spring.metrics;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.store.IdempotencyStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One {@value #OBSERVATION} observation per call through the engine, open from before the claim to
 * after the outcome, so that a trace shows the call with its store calls ({@link
 * TimedIdempotencyStore}'s {@value TimedIdempotencyStore#OBSERVATION} observations) inside it.
 * Low-cardinality keys: {@code operation} (the scope up to its first {@code '|'}, never the
 * caller), {@code store} and {@code outcome} (as {@code idem.executions} names it, {@code none}
 * when the call ended before one); high-cardinality: {@code idem.key.digest}, the key's digest,
 * never the key itself. A step of a call ({@link IdempotencyKey#isStep()}) is an {@value #STEP}
 * observation inside the call's, with the same keys and {@code idem.step}, the step's name.
 *
 * <p>The registry is asked for at the first call; without one, or with a no-op one, nothing is
 * observed.
 */
public final class ObservingIdempotencyListener implements IdempotencyListener {

  /** The observation's name. */
  public static final String OBSERVATION = "idem.execution";

  /** The name of a step's observation. */
  public static final String STEP = "idem.step";

  private static final Runnable NOTHING = () -> {};

  private final Supplier<ObservationRegistry> registrySupplier;
  private final Supplier<IdempotencyStore> storeSupplier;
  private volatile @Nullable ObservationRegistry registry;
  private volatile @Nullable String store;

  /**
   * @param registry supplies the registry at the first call; may supply null
   * @param store supplies the engine's store at the first call, whose class names the {@code store}
   *     key ({@code RedisIdempotencyStore} is {@code redis}); may supply null
   */
  public ObservingIdempotencyListener(
      Supplier<ObservationRegistry> registry, Supplier<IdempotencyStore> store) {
    this.registrySupplier = registry;
    this.storeSupplier = store;
  }

  @Override
  public Runnable onStart(IdempotencyKey key) {
    ObservationRegistry observations = registry();
    if (observations.isNoop()) {
      return NOTHING;
    }
    String operation = MicrometerIdempotencyListener.operationBeforeBar(key);
    Observation observation =
        Observation.createNotStarted(
                key.isStep() ? STEP : OBSERVATION, () -> new Execution(key), observations)
            .contextualName(
                key.isStep()
                    ? "idem " + operation + " step " + key.stepPath()
                    : "idem " + operation)
            .lowCardinalityKeyValue("operation", operation)
            .lowCardinalityKeyValue("store", store())
            .lowCardinalityKeyValue("outcome", "none")
            .highCardinalityKeyValue("idem.key.digest", key.digest());
    if (key.isStep()) {
      observation.highCardinalityKeyValue("idem.step", String.valueOf(key.stepPath()));
    }
    observation.start();
    Observation.Scope scope = observation.openScope();
    return () -> {
      scope.close();
      observation.stop();
    };
  }

  @Override
  public void onOutcome(IdempotencyKey key, ExecutionOutcome outcome) {
    Observation current = registry().getCurrentObservation();
    if (current != null && current.getContext() instanceof Execution execution) {
      if (execution.key.equals(key)) {
        current.lowCardinalityKeyValue("outcome", outcome.name().toLowerCase(Locale.ROOT));
      }
    }
  }

  private String store() {
    String name = store;
    if (name == null) {
      IdempotencyStore found = storeSupplier.get();
      name =
          found == null
              ? "none"
              : found
                  .getClass()
                  .getSimpleName()
                  .replace("IdempotencyStore", "")
                  .replace("InMemory", "memory")
                  .toLowerCase(Locale.ROOT);
      store = name;
    }
    return name;
  }

  private ObservationRegistry registry() {
    ObservationRegistry found = registry;
    if (found == null) {
      ObservationRegistry supplied = registrySupplier.get();
      found = supplied == null ? ObservationRegistry.NOOP : supplied;
      registry = found;
    }
    return found;
  }

  /** The context of one call, telling its observation from others on the thread. */
  static final class Execution extends Observation.Context {
    private final IdempotencyKey key;

    Execution(IdempotencyKey key) {
      this.key = key;
    }
  }
}
