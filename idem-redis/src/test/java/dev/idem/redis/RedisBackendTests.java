package dev.idem.redis;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.core.lock.LockProvider;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.testsupport.AsyncEngineContract;
import dev.idem.testsupport.BatchContract;
import dev.idem.testsupport.CompleterContract;
import dev.idem.testsupport.EngineContract;
import dev.idem.testsupport.IdempotencyStoreContract;
import dev.idem.testsupport.LockProviderContract;
import dev.idem.testsupport.OutcomeContract;
import dev.idem.testsupport.ReplayCacheContract;
import dev.idem.testsupport.ResumeLogContract;
import dev.idem.testsupport.StepContract;
import dev.idem.testsupport.TokenContract;
import java.time.Clock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/**
 * The contract suites on one Redis topology, written once: a topology's IT supplies its store, lock
 * provider and the factory a crashing child JVM builds its store with.
 */
abstract class RedisBackendTests {

  abstract IdempotencyStore store();

  abstract LockProvider locks();

  /** Another store on the same Redis whose process reads {@code clock}. */
  abstract IdempotencyStore storeOnClock(Clock clock);

  abstract Class<? extends Supplier<IdempotencyStore>> crashStoreFactory();

  /** A resume log on the same Redis. */
  abstract ResumeLog resumeLog();

  /**
   * Whether the completer suite runs on this topology: its rules are the engine's over the resume
   * log, whose scripts the log's own suite checks on every topology, so the matrix runs it on the
   * standalone server only.
   */
  boolean completerSuite() {
    return true;
  }

  /** Builds the resume log in a crashing child JVM; null skips the completer's crash test. */
  @Nullable Class<? extends Supplier<ResumeLog>> crashLogFactory() {
    return null;
  }

  @Nested
  class ResumeLogs extends ResumeLogContract {
    @Override
    protected ResumeLog log() {
      return resumeLog();
    }

    @Override
    protected boolean expiresByItself() {
      return true;
    }
  }

  @Nested
  class Completers extends CompleterContract {
    @BeforeEach
    void onlyWhereTheMatrixRunsIt() {
      assumeTrue(completerSuite(), "the completer suite runs on the standalone server");
    }

    @Override
    protected IdempotencyStore store() {
      return RedisBackendTests.this.store();
    }

    @Override
    protected ResumeLog log() {
      return resumeLog();
    }

    @Override
    protected @Nullable Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
      return RedisBackendTests.this.crashStoreFactory();
    }

    @Override
    protected @Nullable Class<? extends Supplier<ResumeLog>> crashLogFactory() {
      return RedisBackendTests.this.crashLogFactory();
    }
  }

  @Nested
  class Store extends IdempotencyStoreContract {
    @Override
    protected IdempotencyStore store() {
      return RedisBackendTests.this.store();
    }

    @Override
    protected IdempotencyStore storeOnClock(Clock clock) {
      return RedisBackendTests.this.storeOnClock(clock);
    }

    @Override
    protected boolean purgesByItself() {
      return true;
    }

    @Override
    protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
      return RedisBackendTests.this.crashStoreFactory();
    }
  }

  @Nested
  class ReplayCache extends ReplayCacheContract {
    @Override
    protected IdempotencyStore store() {
      return RedisBackendTests.this.store();
    }
  }

  @Nested
  class Batches extends BatchContract {
    @Override
    protected IdempotencyStore store() {
      return RedisBackendTests.this.store();
    }
  }

  @Nested
  class Tokens extends TokenContract {
    @Override
    protected IdempotencyStore store() {
      return RedisBackendTests.this.store();
    }
  }

  @Nested
  class Engine extends EngineContract {
    @Override
    protected IdempotencyStore store() {
      return RedisBackendTests.this.store();
    }
  }

  @Nested
  class Steps extends StepContract {
    @Override
    protected IdempotencyStore store() {
      return RedisBackendTests.this.store();
    }

    @Override
    protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
      return RedisBackendTests.this.crashStoreFactory();
    }
  }

  @Nested
  class AsyncEngine extends AsyncEngineContract {
    @Override
    protected IdempotencyStore store() {
      return RedisBackendTests.this.store();
    }
  }

  @Nested
  class Outcomes extends OutcomeContract {
    @Override
    protected IdempotencyStore store() {
      return RedisBackendTests.this.store();
    }
  }

  @Nested
  class Locks extends LockProviderContract {
    @Override
    protected LockProvider provider() {
      return RedisBackendTests.this.locks();
    }
  }
}
