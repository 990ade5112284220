package dev.idem.core.lock;

import dev.idem.core.lock.internal.Durations;
import java.time.Duration;
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
  private final Renewals renewals;
  private final long leaseNanos;
  private final long periodNanos;
  private final long sequence;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean lost;
  // Set only while this lock is out of the renewals' set, which publishes it to the tick.
  private volatile long dueAt;
  // Only touched by renewal ticks, which never overlap for one lock.
  private long lastRenewedAt;

  WatchedLock(
      LockHandle handle, Duration lease, Consumer<? super LockHandle> onLost, Renewals renewals) {
    this.handle = handle;
    this.lease = lease;
    this.onLost = onLost;
    this.renewals = renewals;
    this.leaseNanos = Durations.toNanosSaturated(lease);
    this.periodNanos = Math.max(MIN_PERIOD_NANOS, leaseNanos / 3);
    this.sequence = renewals.nextSequence();
  }

  void start() {
    lastRenewedAt = System.nanoTime();
    dueAt = renewals.now() + periodNanos;
    renewals.add(this);
  }

  long dueAt() {
    return dueAt;
  }

  long sequence() {
    return sequence;
  }

  boolean isClosed() {
    return closed.get();
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
      renewals.remove(this);
    }
    handle.close();
  }

  /** Renews once; called by the watchdog's tick when this lock is due, out of the set. */
  void renewOnce() {
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
    dueAt = renewals.now() + periodNanos;
    renewals.add(this);
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
