package dev.idem.testsupport;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.LocalReplayCache;
import java.time.Instant;
import org.junit.jupiter.api.Nested;

/**
 * The store, token and engine contracts through {@link LocalReplayCache} over the in-memory store,
 * on the store's clock: answering repeats from memory changes none of their rules. And the cache's
 * own contract.
 */
class LocalReplayCacheTest {

  private static LocalReplayCache cached(IdempotencyStore store, MutableClock clock) {
    return LocalReplayCache.in(store).window(ReplayCacheContract.WINDOW).clock(clock).build();
  }

  @Nested
  class Store extends IdempotencyStoreContract {
    private final MutableClock clock =
        MutableClock.stoppedAt(Instant.parse("2026-01-01T00:00:00Z"));
    private final LocalReplayCache store =
        cached(new InMemoryIdempotencyStore(clock, 1_000_000), clock);

    @Override
    protected IdempotencyStore store() {
      return store;
    }

    @Override
    protected TimeControl time() {
      return TimeControl.of(clock);
    }
  }

  @Nested
  class Tokens extends TokenContract {
    private final MutableClock clock =
        MutableClock.stoppedAt(Instant.parse("2026-01-01T00:00:00Z"));
    private final LocalReplayCache store =
        cached(new InMemoryIdempotencyStore(clock, 1_000_000), clock);

    @Override
    protected IdempotencyStore store() {
      return store;
    }

    @Override
    protected TimeControl time() {
      return TimeControl.of(clock);
    }
  }

  @Nested
  class Engine extends EngineContract {
    private final LocalReplayCache store =
        LocalReplayCache.in(new InMemoryIdempotencyStore())
            .window(ReplayCacheContract.WINDOW)
            .build();

    @Override
    protected IdempotencyStore store() {
      return store;
    }
  }

  @Nested
  class Cache extends ReplayCacheContract {
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

    @Override
    protected IdempotencyStore store() {
      return store;
    }
  }
}
