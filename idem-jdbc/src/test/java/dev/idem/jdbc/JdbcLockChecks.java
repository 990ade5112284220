package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.lock.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the lock contract cannot see from one provider: providers in different processes (two
 * instances on one table stand in for them) and the purge of idle rows. Each database's test nests
 * a subclass.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
abstract class JdbcLockChecks {

  private static final Duration LONG = Duration.ofSeconds(30);

  private final String name = "idem-jdbc-lock-" + UUID.randomUUID();

  /** The database's URL. */
  protected abstract String url();

  /** The database's dialect. */
  protected abstract JdbcDialect dialect();

  @Test
  void aProviderOnTheSameTableWaitsUntilAnotherOneReleases() throws Exception {
    JdbcLockProvider here = LockFixtures.provider(url(), dialect());
    JdbcLockProvider elsewhere = LockFixtures.provider(url(), dialect());
    LockHandle holder = here.tryLock(name, Duration.ZERO, LONG).orElseThrow();
    assertThat(elsewhere.tryLock(name, Duration.ZERO, LONG)).isEmpty();

    CompletableFuture<Optional<LockHandle>> waiter =
        CompletableFuture.supplyAsync(() -> lock(elsewhere, Duration.ofSeconds(5)));
    Thread.sleep(100);
    holder.close();

    LockHandle next = assertThat(waiter).succeedsWithin(Duration.ofSeconds(2)).actual().get();
    assertThat(next.fence()).isGreaterThan(holder.fence());
    assertThat(holder.isHeld()).isFalse();
    next.close();
  }

  @Test
  void purgingKeepsHeldLocksAndAStaleHandleNeverTouchesTheRestartedLock() throws Exception {
    JdbcLockProvider provider = LockFixtures.provider(url(), dialect(), Duration.ofMillis(1));
    LockHandle held = provider.tryLock(name + "-held", Duration.ZERO, LONG).orElseThrow();
    LockHandle stale = provider.tryLock(name, Duration.ZERO, Duration.ofMillis(50)).orElseThrow();
    Thread.sleep(100);

    assertThat(provider.purgeIdle(10_000)).isPositive();

    assertThat(held.isHeld()).isTrue();
    try (LockHandle fresh = provider.tryLock(name, Duration.ZERO, LONG).orElseThrow()) {
      // The row was gone, yet the fence still grew (its floor is the database's clock).
      assertThat(fresh.fence()).isGreaterThan(stale.fence());
      assertThat(stale.renew(LONG)).isFalse();
      stale.close();
      assertThat(fresh.isHeld()).isTrue();
      assertThat(provider.tryLock(name, Duration.ZERO, LONG)).isEmpty();
    }
    held.close();
  }

  @Test
  void namesThatDifferOnlyInCaseOrTrailingSpaceAreDifferentLocks() throws Exception {
    JdbcLockProvider provider = LockFixtures.provider(url(), dialect());
    try (LockHandle lower = provider.tryLock(name + "-a", Duration.ZERO, LONG).orElseThrow();
        LockHandle upper = provider.tryLock(name + "-A", Duration.ZERO, LONG).orElseThrow();
        LockHandle padded = provider.tryLock(name + "-a ", Duration.ZERO, LONG).orElseThrow()) {
      assertThat(lower.isHeld()).isTrue();
      assertThat(upper.isHeld()).isTrue();
      assertThat(padded.isHeld()).isTrue();
    }
  }

  private Optional<LockHandle> lock(JdbcLockProvider provider, Duration wait) {
    try {
      return provider.tryLock(name, wait, LONG);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
