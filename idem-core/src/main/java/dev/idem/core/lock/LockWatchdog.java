package dev.idem.core.lock;

import dev.idem.core.lock.internal.LockArguments;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Consumer;

/**
 * Keeps locks alive while their work runs longer than expected, by renewing each watched handle
 * every third of its lease. Use it for work whose length cannot be bounded in advance; when it can,
 * a lease longer than the work is simpler.
 *
 * <p>A watchdog does not make a lock safe: if the process stalls for longer than the lease, no
 * renewal happens and another caller may take the lock. The watchdog then reports the loss, but
 * only after the fact, so the protected write must still be fenced (see {@link LockProvider}).
 *
 * <p>One watchdog can watch any number of locks from any number of providers; an application
 * normally creates one and shares it. Renewals run on a single scheduler thread, so the {@code
 * onLost} callbacks must return quickly. Watching a lock that is closed before its first renewal
 * wakes no thread: it only enters and leaves a set sorted by due time.
 */
public final class LockWatchdog implements AutoCloseable {

  private final ScheduledExecutorService scheduler;
  private final boolean ownsScheduler;
  private final Renewals renewals;

  private LockWatchdog(ScheduledExecutorService scheduler, boolean ownsScheduler) {
    this.scheduler = scheduler;
    this.ownsScheduler = ownsScheduler;
    this.renewals = new Renewals(scheduler);
  }

  /**
   * A watchdog with its own scheduler: one daemon thread named {@code idem-lock-watchdog}, stopped
   * by {@link #close()}.
   */
  public static LockWatchdog create() {
    ScheduledThreadPoolExecutor scheduler =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread thread = new Thread(task, "idem-lock-watchdog");
              thread.setDaemon(true);
              return thread;
            });
    // A tick replaced by an earlier one is cancelled; without this it would linger until its time.
    scheduler.setRemoveOnCancelPolicy(true);
    return new LockWatchdog(scheduler, true);
  }

  /**
   * A watchdog that schedules its renewals on {@code scheduler}. The caller keeps ownership: {@link
   * #close()} does not shut it down.
   */
  public static LockWatchdog using(ScheduledExecutorService scheduler) {
    return new LockWatchdog(Objects.requireNonNull(scheduler, "scheduler must not be null"), false);
  }

  /**
   * Starts renewing {@code handle} for {@code lease} every third of {@code lease}, until the
   * returned lock is closed or a renewal fails. The first renewal happens a third of a lease from
   * now.
   *
   * <p>A renewal that returns {@code false} means the lock is lost: renewal stops, {@link
   * WatchedLock#isLost()} turns true and {@code onLost} is called once, on the scheduler thread,
   * with the returned lock. A renewal that throws (a backend that cannot be reached) is retried on
   * the next tick; if none succeeds for a whole lease, the lock is reported lost as well. Closing
   * the returned lock never reports a loss.
   *
   * @param handle a handle that holds its lock now
   * @param lease the lease each renewal asks for; positive, normally the lease the lock was taken
   *     with
   * @param onLost called at most once if the lock is lost while watched
   * @return a handle that delegates to {@code handle}; closing it stops renewal, then releases
   * @throws IllegalArgumentException if {@code lease} is not positive
   * @throws IllegalStateException if this watchdog is closed
   */
  public WatchedLock watch(LockHandle handle, Duration lease, Consumer<? super LockHandle> onLost) {
    Objects.requireNonNull(handle, "handle must not be null");
    Objects.requireNonNull(onLost, "onLost must not be null");
    LockArguments.checkLease(lease);
    if (renewals.isStopped()) {
      throw new IllegalStateException("this lock watchdog is closed");
    }
    WatchedLock watched = new WatchedLock(handle, lease, onLost, renewals);
    watched.start();
    return watched;
  }

  /**
   * Like {@link #watch(LockHandle, Duration, Consumer)} without a callback; check {@link
   * WatchedLock#isLost()} instead.
   */
  public WatchedLock watch(LockHandle handle, Duration lease) {
    return watch(handle, lease, lost -> {});
  }

  /**
   * Stops renewing every watched lock, and stops the scheduler if this watchdog created it. Watched
   * locks stay held only until their current lease ends; they are not released and no loss is
   * reported.
   */
  @Override
  public void close() {
    renewals.stop();
    if (ownsScheduler) {
      scheduler.shutdownNow();
    }
  }
}
