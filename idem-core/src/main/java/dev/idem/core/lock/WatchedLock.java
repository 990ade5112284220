package dev.idem.core.lock;

import dev.idem.core.internal.LeaseWatchdog;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * A lock handle renewed in the background by a {@link LockWatchdog}. It answers like the handle it
 * wraps, and adds {@link #isLost()}. Closing it stops renewal and then releases the lock.
 */
public final class WatchedLock implements LockHandle {

  private final LockHandle handle;
  private final LeaseWatchdog.Watch watch;

  WatchedLock(
      LockHandle handle,
      Duration lease,
      Consumer<? super LockHandle> onLost,
      LeaseWatchdog watchdog) {
    this.handle = handle;
    WatchedLock self = this;
    this.watch =
        watchdog.watch(
            new LeaseWatchdog.Renewable() {
              @Override
              public boolean renew() {
                return handle.renew(lease);
              }

              @Override
              public void lost() {
                onLost.accept(self);
              }

              @Override
              public String describe() {
                return "lock '" + handle.name() + "' (fence " + handle.fence() + ")";
              }
            },
            lease);
  }

  /**
   * Whether the watchdog found the lock lost: a renewal was refused, or none succeeded for a whole
   * lease. Stays false once the lock is closed by its owner.
   */
  public boolean isLost() {
    return watch.isLost();
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
    return !isLost() && handle.isHeld();
  }

  /** Stops renewal, then closes the wrapped handle. Idempotent. */
  @Override
  public void close() {
    watch.close();
    handle.close();
  }
}
