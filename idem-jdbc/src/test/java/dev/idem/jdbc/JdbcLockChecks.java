package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.lock.LockHandle;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
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
  // Where a waiter of the shared lock provider sleeps between attempts.
  private static final String SIGNAL = "dev.idem.core.lock.LockWakeups$Signal";

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

    CompletableFuture<Optional<LockHandle>> waiter = new CompletableFuture<>();
    Thread waiting =
        new Thread(() -> waiter.complete(lock(elsewhere, Duration.ofSeconds(20))), name);
    waiting.setDaemon(true);
    waiting.start();
    // Until the waiter has found the lock held and is backing off, a pass would not show that it
    // waited; the other provider's release cannot wake it, so it finds the lock at a later try.
    await("the waiter backing off").atMost(Duration.ofSeconds(10)).until(() -> backsOff(waiting));
    assertThat(waiter).isNotDone();
    holder.close();

    LockHandle next = assertThat(waiter).succeedsWithin(Duration.ofSeconds(10)).actual().get();
    assertThat(next.fence()).isGreaterThan(holder.fence());
    assertThat(holder.isHeld()).isFalse();
    next.close();
  }

  @Test
  void purgingKeepsHeldLocksAndAStaleHandleNeverTouchesTheRestartedLock() throws Exception {
    JdbcLockProvider provider = LockFixtures.provider(url(), dialect(), Duration.ofMillis(1));
    LockHandle held = provider.tryLock(name + "-held", Duration.ZERO, LONG).orElseThrow();
    LockHandle stale = provider.tryLock(name, Duration.ZERO, Duration.ofMillis(50)).orElseThrow();
    assertThat(rowExists(name)).isTrue();

    // Its lease ends, and a millisecond later its row may go.
    await("the stale lock's row purged")
        .atMost(Duration.ofSeconds(10))
        .until(() -> provider.purgeIdle(10_000) >= 0 && !rowExists(name));

    assertThat(rowExists(name + "-held")).isTrue();
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

  /** Whether {@code thread} sleeps between two tries of a lock it found held. */
  private static boolean backsOff(Thread thread) {
    return thread.getState() == Thread.State.TIMED_WAITING
        && Arrays.stream(thread.getStackTrace()).anyMatch(f -> f.getClassName().equals(SIGNAL));
  }

  /** Whether the lock table has a row for {@code lockName}. */
  private boolean rowExists(String lockName) throws SQLException {
    try (Connection c = Databases.pool(url()).getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM " + JdbcLockConfig.DEFAULT_TABLE + " WHERE name = ?")) {
      ps.setString(1, lockName);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1) > 0;
      }
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
