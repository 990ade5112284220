package dev.idem.core.lock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition by a {@link StoredLockProvider}. Every step names the owner and the fence, so a
 * handle whose lease ran out cannot touch its successor's lock. Once closed or refused a renewal,
 * it answers without asking the storage.
 */
final class StoredLock implements LockHandle {

  private static final Logger log = LoggerFactory.getLogger(StoredLock.class);

  private final StoredLockProvider provider;
  private final String name;
  private final String owner;
  private final long fence;
  private final AtomicBoolean done = new AtomicBoolean();

  StoredLock(StoredLockProvider provider, String name, String owner, long fence) {
    this.provider = provider;
    this.name = name;
    this.owner = owner;
    this.fence = fence;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public long fence() {
    return fence;
  }

  @Override
  public String owner() {
    return owner;
  }

  @Override
  public boolean renew(Duration lease) {
    LockArguments.checkLease(lease);
    if (done.get()) {
      return false;
    }
    boolean renewed = provider.storage().renew(name, owner, fence, lease);
    if (!renewed) {
      done.set(true);
    }
    return renewed;
  }

  @Override
  public boolean isHeld() {
    return !done.get() && provider.storage().isHeld(name, owner, fence);
  }

  /**
   * {@inheritDoc}
   *
   * <p>If the storage cannot be reached, the failure is logged and the lock ends with its lease.
   */
  @Override
  public void close() {
    if (done.getAndSet(true)) {
      return;
    }
    try {
      if (provider.storage().release(name, owner, fence)) {
        provider.released(name);
      } else {
        log.debug("Lock '{}' (fence {}) was no longer held when closed", name, fence);
      }
    } catch (RuntimeException e) {
      log.warn("Could not release lock '{}' (fence {}); it ends with its lease", name, fence, e);
    }
  }

  @Override
  public String toString() {
    return "lock '" + name + "' (fence " + fence + ")";
  }
}
