package dev.idem.core.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LockWatchdogTest {

  private static final Duration LEASE = Duration.ofMillis(300);
  private static final Duration THREE_TICKS = LEASE;
  // Only an upper bound for a loaded machine: the awaits return as soon as their condition holds.
  private static final Duration SOON = Duration.ofSeconds(10);

  private final LockWatchdog watchdog = LockWatchdog.create();
  private final AtomicInteger reports = new AtomicInteger();

  @AfterEach
  void closeWatchdog() {
    watchdog.close();
  }

  @Test
  void renewsWithTheGivenLeaseEveryThirdOfIt() {
    FakeHandle handle = new FakeHandle(attempt -> true);

    watchdog.watch(handle, LEASE);

    await().atMost(SOON).until(() -> handle.renewals.get() >= 3);
    assertThat(handle.lastLease).isEqualTo(LEASE);
  }

  @Test
  void renewsAShortLeaseWatchedAfterALongOneAtItsOwnPace() {
    FakeHandle longLease = new FakeHandle(attempt -> true);
    FakeHandle shortLease = new FakeHandle(attempt -> true);

    watchdog.watch(longLease, Duration.ofHours(1));
    watchdog.watch(shortLease, LEASE);

    await().atMost(SOON).until(() -> shortLease.renewals.get() >= 3);
    assertThat(longLease.renewals).hasValue(0);
  }

  @Test
  void neverRenewsALockClosedBeforeItsFirstRenewal() {
    FakeHandle closedEarly = new FakeHandle(attempt -> true);
    FakeHandle watched = new FakeHandle(attempt -> true);

    watchdog.watch(closedEarly, LEASE).close();
    watchdog.watch(watched, LEASE);

    // The second lock's renewals show that ticks ran past the first lock's due time.
    await().atMost(SOON).until(() -> watched.renewals.get() >= 3);
    assertThat(closedEarly.renewals).hasValue(0);
    assertThat(closedEarly.closes).hasValue(1);
  }

  @Test
  void stopsRenewingAndReleasesWhenClosed() {
    FakeHandle handle = new FakeHandle(attempt -> true);
    WatchedLock watched = watchdog.watch(handle, LEASE, lost -> reports.incrementAndGet());
    await().atMost(SOON).until(() -> handle.renewals.get() >= 1);

    watched.close();
    watched.close();

    int renewalsAtClose = handle.renewals.get();
    // A renewal already running at close may still finish; none may start after it.
    await()
        .during(THREE_TICKS)
        .atMost(SOON)
        .until(() -> handle.renewals.get() <= renewalsAtClose + 1);
    assertThat(handle.closes).hasPositiveValue();
    assertThat(watched.isLost()).isFalse();
    assertThat(reports).hasValue(0);
  }

  @Test
  void reportsARefusedRenewalOnceAndStops() {
    FakeHandle handle = new FakeHandle(attempt -> false);

    WatchedLock watched = watchdog.watch(handle, LEASE, lost -> reports.incrementAndGet());

    await().atMost(SOON).until(() -> reports.get() == 1);
    assertThat(watched.isLost()).isTrue();
    assertThat(watched.isHeld()).isFalse();
    await().during(THREE_TICKS).atMost(SOON).until(() -> handle.renewals.get() == 1);
    assertThat(reports).hasValue(1);
  }

  @Test
  void retriesARenewalThatFailedWithAnError() {
    FakeHandle handle = new FakeHandle(attempt -> attempt > 1 || fail());

    WatchedLock watched = watchdog.watch(handle, LEASE, lost -> reports.incrementAndGet());

    await().atMost(SOON).until(() -> handle.renewals.get() >= 4);
    assertThat(watched.isLost()).isFalse();
    assertThat(reports).hasValue(0);
  }

  @Test
  void reportsLossWhenRenewalsFailForAWholeLease() {
    FakeHandle handle = new FakeHandle(attempt -> fail());

    WatchedLock watched = watchdog.watch(handle, LEASE, lost -> reports.incrementAndGet());

    // the callback runs after the lock is marked lost, on the watchdog's thread: wait for it
    await().atMost(SOON).until(() -> reports.get() == 1);
    assertThat(watched.isLost()).isTrue();
    // Retried before giving up; how many times depends on how late a loaded scheduler runs.
    assertThat(handle.renewals.get()).isGreaterThanOrEqualTo(2);
    assertThat(reports).hasValue(1);
  }

  @Test
  void aFailingCallbackDoesNotStopTheRenewalOfOtherLocks() {
    FakeHandle healthy = new FakeHandle(attempt -> true);
    watchdog.watch(
        new FakeHandle(attempt -> false),
        LEASE,
        lost -> {
          throw new IllegalStateException("callback broke");
        });
    watchdog.watch(healthy, LEASE);

    await().atMost(SOON).until(() -> healthy.renewals.get() >= 4);
  }

  @Test
  void closingTheWatchdogStopsEveryRenewalButLeavesALentSchedulerRunning() {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      LockWatchdog lent = LockWatchdog.using(scheduler);
      FakeHandle handle = new FakeHandle(attempt -> true);
      lent.watch(handle, LEASE);
      lent.close();
      assertThat(scheduler.isShutdown()).isFalse();
      await().during(THREE_TICKS).atMost(SOON).until(() -> handle.renewals.get() == 0);

      FakeHandle own = new FakeHandle(attempt -> true);
      watchdog.watch(own, LEASE);
      watchdog.close();
      await().during(THREE_TICKS).atMost(SOON).until(() -> own.renewals.get() <= 1);
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void aClosedWatchdogWatchesNothingMore() {
    watchdog.close();

    assertThatIllegalStateException()
        .isThrownBy(() -> watchdog.watch(new FakeHandle(attempt -> true), LEASE));
  }

  @Test
  void rejectsALeaseThatIsNotPositive() {
    FakeHandle handle = new FakeHandle(attempt -> true);

    assertThatIllegalArgumentException().isThrownBy(() -> watchdog.watch(handle, Duration.ZERO));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> watchdog.watch(handle, Duration.ofMillis(-1)));
  }

  private static boolean fail() {
    throw new IllegalStateException("backend unreachable");
  }

  /** Answers renewals by attempt number (1 for the first); counts renewals and closes. */
  private static final class FakeHandle implements LockHandle {
    final AtomicInteger renewals = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();
    final IntPredicate answer;
    volatile Duration lastLease;

    FakeHandle(IntPredicate answer) {
      this.answer = answer;
    }

    @Override
    public String name() {
      return "fake";
    }

    @Override
    public long fence() {
      return 7;
    }

    @Override
    public String owner() {
      return "fake-owner";
    }

    @Override
    public boolean renew(Duration lease) {
      lastLease = lease;
      return answer.test(renewals.incrementAndGet());
    }

    @Override
    public boolean isHeld() {
      return true;
    }

    @Override
    public void close() {
      closes.incrementAndGet();
    }
  }
}
