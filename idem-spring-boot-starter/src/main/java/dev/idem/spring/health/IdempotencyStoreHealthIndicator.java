package dev.idem.spring.health;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.IdempotencyStore;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The store's health: UP when a read of one fixed key answers, DOWN with the exception when it
 * throws (the server is unreachable, the table is missing). The read writes nothing.
 */
public class IdempotencyStoreHealthIndicator extends AbstractHealthIndicator {

  /** The key read by every check; it is never written. */
  static final IdempotencyKey PROBE = IdempotencyKey.of("idem.health", "probe");

  private final IdempotencyStore store;

  /**
   * An indicator that reads the probe key from {@code store} at every check.
   *
   * @param store the store to check; a check never writes to it
   */
  public IdempotencyStoreHealthIndicator(IdempotencyStore store) {
    super("idempotency store health check failed");
    this.store = store;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    store.find(PROBE);
    builder.up().withDetail("store", store.getClass().getSimpleName());
  }
}
