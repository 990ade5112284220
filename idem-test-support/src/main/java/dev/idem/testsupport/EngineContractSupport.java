package dev.idem.testsupport;

import dev.idem.core.Idempotency;
import dev.idem.core.store.IdempotencyStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;

/** What the engine suites share: engines on the backend's store, closed after each test. */
public abstract class EngineContractSupport extends StoreContractSupport {

  private final List<Idempotency> engines = new CopyOnWriteArrayList<>();

  /** An engine with the default config on {@code store}, closed after the test. */
  protected Idempotency engine(IdempotencyStore store) {
    return engine(Idempotency.builder(store));
  }

  /** The engine {@code builder} builds, closed after the test. */
  protected Idempotency engine(Idempotency.Builder builder) {
    Idempotency engine = builder.build();
    engines.add(engine);
    return engine;
  }

  @AfterEach
  void closeEngines() {
    engines.forEach(Idempotency::close);
  }
}
