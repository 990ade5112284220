package dev.idem.redis.internal;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.lock.LockHandle;
import dev.idem.core.lock.internal.LockArguments;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One acquisition of a Redis lock; every call checks the owner token in a script. */
public final class RedisLock implements LockHandle {

  private static final Logger log = LoggerFactory.getLogger(RedisLock.class);

  private final String name;
  private final long fence;
  private final String id;
  private final String owner;
  private final byte[][] keys;
  private final LockCalls calls;
  private final AtomicBoolean done = new AtomicBoolean();

  RedisLock(String name, String id, long fence, String owner, byte[][] keys, LockCalls calls) {
    this.name = name;
    this.id = id;
    this.fence = fence;
    this.owner = owner;
    this.keys = keys;
    this.calls = calls;
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
    boolean renewed = calls.renew(keys, owner, lease);
    if (!renewed) {
      // A refusal is final: the lease ran out or another owner holds the lock.
      done.set(true);
    }
    return renewed;
  }

  @Override
  public boolean isHeld() {
    return !done.get() && calls.held(keys, owner);
  }

  /**
   * Releases the lock if still held. A Redis failure here is logged, not thrown: the lease ends by
   * itself, which releases the lock all the same.
   */
  @Override
  public void close() {
    if (done.getAndSet(true)) {
      return;
    }
    try {
      calls.unlock(keys, id, owner);
    } catch (IdempotencyStoreException e) {
      log.warn("Could not release lock '{}'; it ends with its lease", name, e);
    }
  }
}
