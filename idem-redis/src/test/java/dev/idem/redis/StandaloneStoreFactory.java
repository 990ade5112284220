package dev.idem.redis;

import dev.idem.core.store.IdempotencyStore;
import java.util.function.Supplier;

/** Builds, in a crash test's child JVM, a store on the same standalone Redis as the tests. */
public final class StandaloneStoreFactory implements Supplier<IdempotencyStore> {

  @Override
  public IdempotencyStore get() {
    return RedisIdempotencyStore.create(RedisTestServers.standaloneClient());
  }
}
