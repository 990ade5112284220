package dev.idem.core.lock;

import dev.idem.core.internal.LeaseWatchdog;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
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
 * normally creates one and shares it. It is the engine's lease renewer, watching lock handles: one
 * thread keeps time and a small pool runs the renewals, so a renewal that hangs on a stalled
 * backend delays no other lock's, nor the loss of its own. {@code onLost} runs on one of those
 * threads and should return quickly. Watching a lock that is closed before its first renewal wakes
 * no thread.
 */
public final class LockWatchdog implements AutoCloseable {

  private final LeaseWatchdog renewer;
  private volatile boolean closed;

  private LockWatchdog(LeaseWatchdog renewer) {
    this.renewer = renewer;
  }

  /** A watchdog with its own threads (daemons), stopped by {@link #close()}. */
  public static LockWatchdog create() {
    return new LockWatchdog(new LeaseWatchdog());
  }

  /**
   * A watchdog that runs its renewals on {@code renewals}. The caller keeps ownership: {@link
   * #close()} does not shut it down.
   */
  public static LockWatchdog using(Executor renewals) {
    return new LockWatchdog(
        new LeaseWatchdog(Objects.requireNonNull(renewals, "renewals must not be null")));
  }

  /**
   * Starts renewing {@code handle} for {@code lease} every third of {@code lease}, until the
   * returned lock is closed or a renewal fails. The first renewal happens a third of a lease from
   * now.
   *
   * <p>A renewal that returns {@code false} means the lock is lost: renewal stops, {@link
   * WatchedLock#isLost()} turns true and {@code onLost} is called once, on a renewal thread, with
   * the returned lock. A renewal that throws (a backend that cannot be reached) is retried on the
   * next tick; if none succeeds for a whole lease, the lock is reported lost as well. Closing the
   * returned lock never reports a loss.
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
    if (closed) {
      throw new IllegalStateException("this lock watchdog is closed");
    }
    return new WatchedLock(handle, lease, onLost, renewer);
  }

  /**
   * Like {@link #watch(LockHandle, Duration, Consumer)} without a callback; check {@link
   * WatchedLock#isLost()} instead.
   */
  public WatchedLock watch(LockHandle handle, Duration lease) {
    return watch(handle, lease, lost -> {});
  }

  /**
   * Stops renewing every watched lock, and stops the threads this watchdog created. Watched locks
   * stay held only until their current lease ends; they are not released and no loss is reported.
   */
  @Override
  public void close() {
    closed = true;
    renewer.close();
  }
}
