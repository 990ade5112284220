package dev.idem.core.lock;

import dev.idem.core.lock.internal.Durations;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock handle renewed in the background by a {@link LockWatchdog}. It answers like the handle it
 * wraps, and adds {@link #isLost()}. Closing it stops renewal and then releases the lock.
 */
public final class WatchedLock implements LockHandle {

  private static final Logger log = LoggerFactory.getLogger(WatchedLock.class);
  private static final long MIN_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final LockHandle handle;
  private final Duration lease;
  private final Consumer<? super LockHandle> onLost;
  private final ScheduledExecutorService scheduler;
  private final long leaseNanos;
  private final long periodNanos;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean lost;
  private volatile ScheduledFuture<?> next;
  // Only touched by renewal ticks, which never overlap and are ordered by the scheduler.
  private long lastRenewedAt;

  WatchedLock(
      LockHandle handle,
      Duration lease,
      Consumer<? super LockHandle> onLost,
      ScheduledExecutorService scheduler) {
    this.handle = handle;
    this.lease = lease;
    this.onLost = onLost;
    this.scheduler = scheduler;
    this.leaseNanos = Durations.toNanosSaturated(lease);
    this.periodNanos = Math.max(MIN_PERIOD_NANOS, leaseNanos / 3);
  }

  void start() {
    lastRenewedAt = System.nanoTime();
    next = scheduler.schedule(this::renewOnce, periodNanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Whether the watchdog found the lock lost: a renewal was refused, or none succeeded for a whole
   * lease. Stays false once the lock is closed by its owner.
   */
  public boolean isLost() {
    return lost;
  }

  @Override
  public String name() {
    return handle.name();
  }

  @Override
  public long fence() {
    return handle.fence();
  }

  @Override
  public String owner() {
    return handle.owner();
  }

  /** Renews the wrapped handle now; the watchdog keeps renewing with its own lease afterwards. */
  @Override
  public boolean renew(Duration lease) {
    return handle.renew(lease);
  }

  @Override
  public boolean isHeld() {
    return !lost && handle.isHeld();
  }

  /** Stops renewal, then closes the wrapped handle. Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      ScheduledFuture<?> pending = next;
      if (pending != null) {
        pending.cancel(false);
      }
    }
    handle.close();
  }

  private void renewOnce() {
    if (closed.get()) {
      return;
    }
    boolean renewed;
    try {
      renewed = handle.renew(lease);
    } catch (RuntimeException e) {
      renewed = false;
      if (System.nanoTime() - lastRenewedAt < leaseNanos) {
        log.warn("Could not renew lock '{}', retrying", handle.name(), e);
        scheduleNext();
        return;
      }
    }
    if (renewed) {
      lastRenewedAt = System.nanoTime();
      scheduleNext();
    } else if (!closed.get()) {
      // A refusal after close is expected: the owner released the lock, nothing was lost.
      reportLost();
    }
  }

  private void scheduleNext() {
    if (closed.get()) {
      return;
    }
    try {
      next = scheduler.schedule(this::renewOnce, periodNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      // The watchdog was closed: renewal ends and the lease runs out, as its close() promises.
    }
  }

  private void reportLost() {
    lost = true;
    log.warn("Lost lock '{}' (fence {})", handle.name(), handle.fence());
    try {
      onLost.accept(this);
    } catch (RuntimeException e) {
      log.error("onLost callback for lock '{}' failed", handle.name(), e);
    }
  }
}
