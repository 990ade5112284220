package dev.idem.testsupport;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.resume.InMemoryResumeLog;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.IdempotencyStore;
import java.time.Instant;
import org.junit.jupiter.api.Nested;

/** The whole store, token and engine contract on the in-memory store. */
class InMemoryIdempotencyStoreTest {

  @Nested
  class Store extends IdempotencyStoreContract {
    private final MutableClock clock =
        MutableClock.stoppedAt(Instant.parse("2026-01-01T00:00:00Z"));
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 1_000_000);

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
  class Batches extends BatchContract {
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

    @Override
    protected IdempotencyStore store() {
      return store;
    }
  }

  @Nested
  class Tokens extends TokenContract {
    private final MutableClock clock =
        MutableClock.stoppedAt(Instant.parse("2026-01-01T00:00:00Z"));
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 1_000_000);

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
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

    @Override
    protected IdempotencyStore store() {
      return store;
    }
  }

  @Nested
  class Steps extends StepContract {
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

    @Override
    protected IdempotencyStore store() {
      return store;
    }
  }

  @Nested
  class Completers extends CompleterContract {
    private final MutableClock clock =
        MutableClock.stoppedAt(Instant.parse("2026-01-01T00:00:00Z"));
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 1_000_000);
    private final InMemoryResumeLog log = new InMemoryResumeLog(clock);

    @Override
    protected IdempotencyStore store() {
      return store;
    }

    @Override
    protected ResumeLog log() {
      return log;
    }

    @Override
    protected TimeControl time() {
      return TimeControl.of(clock);
    }
  }

  @Nested
  class AsyncEngine extends AsyncEngineContract {
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

    @Override
    protected IdempotencyStore store() {
      return store;
    }
  }

  @Nested
  class Outcomes extends OutcomeContract {
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

    @Override
    protected IdempotencyStore store() {
      return store;
    }
  }
}
