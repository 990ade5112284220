package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

import dev.idem.core.lock.LockHandle;
import dev.idem.core.lock.LockProvider;
import dev.idem.core.lock.LockWatchdog;
import dev.idem.core.lock.WatchedLock;
import dev.idem.testsupport.internal.LockFuzzer;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link LockProvider} must show: leases that run out by themselves, handles
 * that can be renewed (which a {@link LockWatchdog} needs), fences that only grow. A backend's test
 * extends this class and returns its provider from {@link #provider()}; every test runs on every
 * backend. Every test uses lock names of its own, so a backend may share one server between tests.
 *
 * <p>Leases are a few hundred milliseconds, so against a real server the suite takes a few seconds.
 * A backend whose provider reads a clock the test controls (such as {@link MutableClock#ticking()})
 * overrides {@link #letTimePass} to advance that clock instead of sleeping. The watchdog tests
 * always run in real time, because the watchdog renews in real time; the provider's leases must
 * therefore follow real time as well (a ticking clock does, a stopped one does not).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
public abstract class LockProviderContract {

  /** The lease of locks that must run out during a test. */
  protected static final Duration SHORT_LEASE = Duration.ofMillis(400);

  /**
   * The lease a watchdog keeps renewing: long enough that a renewal delayed by a loaded machine
   * still lands before it ends.
   */
  private static final Duration WATCHED_LEASE = Duration.ofMillis(900);

  private static final Duration LONG_LEASE = Duration.ofSeconds(30);
  private static final Duration MARGIN = Duration.ofMillis(200);
  private static final Duration PROMPTLY = Duration.ofSeconds(2);

  private final String name = "idem-lock-contract-" + UUID.randomUUID();
  private final ExecutorService background = Executors.newCachedThreadPool();

  /** The provider under test; called several times per test, it must return the same provider. */
  protected abstract LockProvider provider();

  /**
   * Lets {@code duration} pass for the provider's leases. The default sleeps, which is the only way
   * to move a real server's clock; a provider on a test clock advances it instead.
   */
  protected void letTimePass(Duration duration) throws InterruptedException {
    TimeUnit.NANOSECONDS.sleep(duration.toNanos());
  }

  @AfterEach
  void stopBackgroundThreads() {
    background.shutdownNow();
  }

  @Test
  void acquiresAFreeLock() throws InterruptedException {
    LockHandle handle = acquire(name, LONG_LEASE);

    assertThat(handle.name()).isEqualTo(name);
    assertThat(handle.owner()).isNotBlank();
    assertThat(handle.isHeld()).isTrue();
    handle.close();
    assertThat(handle.isHeld()).isFalse();
  }

  @Test
  void refusesASecondCallerWhileTheLockIsHeld() throws InterruptedException {
    try (LockHandle holder = acquire(name, LONG_LEASE)) {
      assertThat(provider().tryLock(name, Duration.ZERO, LONG_LEASE)).isEmpty();
      assertThat(provider().tryLock(name, Duration.ofMillis(100), LONG_LEASE)).isEmpty();
      assertThat(holder.isHeld()).isTrue();
    }
  }

  @Test
  void locksUnderOtherNamesAreIndependent() throws InterruptedException {
    try (LockHandle first = acquire(name + "-1", LONG_LEASE);
        LockHandle second = acquire(name + "-2", LONG_LEASE)) {
      assertThat(first.isHeld()).isTrue();
      assertThat(second.isHeld()).isTrue();
    }
  }

  @Test
  void wakesAWaiterPromptlyWhenTheHolderCloses() throws InterruptedException {
    LockHandle holder = acquire(name, LONG_LEASE);
    Future<Optional<LockHandle>> waiter =
        background.submit(() -> provider().tryLock(name, Duration.ofSeconds(10), LONG_LEASE));
    // Unless the waiter is seen blocked first, a pass would not show that the release woke it.
    await().during(MARGIN).atMost(PROMPTLY).until(() -> !waiter.isDone());

    holder.close();

    LockHandle next = assertThat(waiter).succeedsWithin(PROMPTLY).actual().orElseThrow();
    assertThat(next.fence()).isGreaterThan(holder.fence());
    next.close();
  }

  @Test
  void letsAWaiterInWhenTheHoldersLeaseRunsOut() throws InterruptedException {
    LockHandle holder = acquire(name, SHORT_LEASE);
    Future<Optional<LockHandle>> waiter =
        background.submit(() -> provider().tryLock(name, Duration.ofSeconds(10), LONG_LEASE));

    letTimePass(SHORT_LEASE.plus(MARGIN));

    LockHandle next = assertThat(waiter).succeedsWithin(PROMPTLY).actual().orElseThrow();
    assertThat(next.fence()).isGreaterThan(holder.fence());
    assertThat(holder.isHeld()).isFalse();
    next.close();
  }

  @Test
  void givesAnExpiredLockToTheNextCallerWithAHigherFence() throws InterruptedException {
    LockHandle first = acquire(name, SHORT_LEASE);

    letTimePass(SHORT_LEASE.plus(MARGIN));

    assertThat(first.isHeld()).isFalse();
    try (LockHandle second = acquire(name, LONG_LEASE)) {
      assertThat(second.fence()).isGreaterThan(first.fence());
      assertThat(second.owner()).isNotEqualTo(first.owner());
    }
  }

  @Test
  void aStaleOwnerCanNeitherRenewNorReleaseTheNewOwnersLock() throws InterruptedException {
    LockHandle stale = acquire(name, SHORT_LEASE);
    letTimePass(SHORT_LEASE.plus(MARGIN));

    try (LockHandle current = acquire(name, LONG_LEASE)) {
      assertThat(stale.renew(LONG_LEASE)).isFalse();
      stale.close();

      assertThat(stale.isHeld()).isFalse();
      assertThat(current.isHeld()).isTrue();
      assertThat(provider().tryLock(name, Duration.ZERO, LONG_LEASE)).isEmpty();
    }
  }

  @Test
  void renewingKeepsTheLockPastItsFirstLease() throws InterruptedException {
    try (LockHandle handle = acquire(name, SHORT_LEASE)) {
      assertThat(handle.renew(LONG_LEASE)).isTrue();

      letTimePass(SHORT_LEASE.plus(MARGIN));

      assertThat(handle.isHeld()).isTrue();
      assertThat(provider().tryLock(name, Duration.ZERO, LONG_LEASE)).isEmpty();
    }
  }

  @Test
  void closingTwiceIsHarmlessAndNeverReleasesALaterOwner() throws InterruptedException {
    LockHandle first = acquire(name, LONG_LEASE);
    first.close();
    first.close();

    assertThat(first.isHeld()).isFalse();
    assertThat(first.renew(LONG_LEASE)).isFalse();
    try (LockHandle second = acquire(name, LONG_LEASE)) {
      first.close();
      assertThat(second.isHeld()).isTrue();
    }
  }

  @Test
  void anotherThreadCanCloseTheHandle() throws InterruptedException {
    LockHandle handle = acquire(name, LONG_LEASE);

    assertThat(background.submit(handle::close)).succeedsWithin(PROMPTLY);

    assertThat(handle.isHeld()).isFalse();
    acquire(name, LONG_LEASE).close();
  }

  @Test
  void everyAcquisitionGetsAHigherFenceAndANewOwner() throws InterruptedException {
    long previousFence = Long.MIN_VALUE;
    Set<String> owners = new HashSet<>();
    for (int i = 0; i < 5; i++) {
      try (LockHandle handle = acquire(name, LONG_LEASE)) {
        assertThat(handle.fence()).isGreaterThan(previousFence);
        previousFence = handle.fence();
        owners.add(handle.owner());
      }
    }
    assertThat(owners).hasSize(5);
  }

  @Test
  @SuppressWarnings("NullAway") // a null name on purpose: the provider must refuse it
  void rejectsInvalidArguments() throws InterruptedException {
    LockProvider provider = provider();
    Duration zero = Duration.ZERO;

    assertThatIllegalArgumentException().isThrownBy(() -> provider.tryLock("", zero, LONG_LEASE));
    assertThatIllegalArgumentException().isThrownBy(() -> provider.tryLock(" ", zero, LONG_LEASE));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> provider.tryLock("x".repeat(256), zero, LONG_LEASE))
        .withMessageContaining("255");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> provider.tryLock(name, zero, Duration.ZERO))
        .withMessageContaining("lease");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> provider.tryLock(name, zero, Duration.ofSeconds(-1)));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> provider.tryLock(name, Duration.ofMillis(-1), LONG_LEASE))
        .withMessageContaining("wait");
    assertThatNullPointerException().isThrownBy(() -> provider.tryLock(null, zero, LONG_LEASE));
    try (LockHandle handle = acquire(name + "x".repeat(255 - name.length()), LONG_LEASE)) {
      assertThatIllegalArgumentException().isThrownBy(() -> handle.renew(Duration.ZERO));
      assertThat(handle.isHeld()).isTrue();
    }
  }

  @Test
  void neverLetsTwoCallersHoldTheSameLockAtOnce() throws Exception {
    LockFuzzer.Result result = new LockFuzzer(provider(), name, LONG_LEASE).run(background);

    assertThat(result.acquisitions()).isEqualTo(LockFuzzer.THREADS * LockFuzzer.ROUNDS);
    assertThat(result.mostHoldersAtOnce()).isEqualTo(1);
    assertThat(result.fencesInAcquisitionOrder())
        .hasSize(LockFuzzer.NAMES)
        .allSatisfy((lock, fences) -> assertThat(fences).isSorted().doesNotHaveDuplicates());
  }

  @Test
  void aWatchdogKeepsTheLockPastItsFirstLease() throws InterruptedException {
    try (LockWatchdog watchdog = LockWatchdog.create()) {
      WatchedLock watched = watchdog.watch(acquire(name, WATCHED_LEASE), WATCHED_LEASE);

      await()
          .during(WATCHED_LEASE.multipliedBy(3))
          .atMost(PROMPTLY.multipliedBy(3))
          .until(watched::isHeld);
      assertThat(provider().tryLock(name, Duration.ZERO, LONG_LEASE)).isEmpty();
      assertThat(watched.isLost()).isFalse();

      watched.close();
      assertThat(watched.isLost()).isFalse();
      acquire(name, LONG_LEASE).close();
    }
  }

  @Test
  void aWatchdogReportsALockThatWasTakenOver() throws InterruptedException {
    // The holder stalls past its lease (as in a long GC pause) and someone else takes the lock.
    LockHandle stale = acquire(name, SHORT_LEASE);
    letTimePass(SHORT_LEASE.plus(MARGIN));
    AtomicInteger reports = new AtomicInteger();
    try (LockHandle current = acquire(name, LONG_LEASE);
        LockWatchdog watchdog = LockWatchdog.create()) {
      WatchedLock watched = watchdog.watch(stale, SHORT_LEASE, lost -> reports.incrementAndGet());

      await().atMost(PROMPTLY).until(() -> reports.get() == 1);
      assertThat(watched.isLost()).isTrue();
      assertThat(watched.isHeld()).isFalse();
      watched.close();
      assertThat(current.isHeld()).isTrue();
      await().during(SHORT_LEASE).atMost(PROMPTLY).until(() -> reports.get() == 1);
    }
  }

  private LockHandle acquire(String lockName, Duration lease) throws InterruptedException {
    Optional<LockHandle> handle = provider().tryLock(lockName, Duration.ZERO, lease);
    assertThat(handle).as("lock %s should be free", lockName).isPresent();
    return handle.orElseThrow();
  }
}
