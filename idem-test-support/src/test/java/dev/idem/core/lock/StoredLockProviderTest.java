package dev.idem.core.lock;

import dev.idem.testsupport.LockProviderContract;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;

/**
 * Runs the lock contract on the wait loop's other branch: a storage that, like a database table,
 * neither announces releases nor tells how long the holder's lease still runs, so its waiters back
 * off. {@link InMemoryLockProviderTest} covers the announcing branch.
 */
class StoredLockProviderTest extends LockProviderContract {

  private final MutableClock clock = MutableClock.ticking();
  private final StoredLockProvider provider =
      new StoredLockProvider(new Silent(new InMemoryLockStorage(clock)));

  @Override
  protected LockProvider provider() {
    return provider;
  }

  @Override
  protected void letTimePass(Duration duration) {
    clock.advance(duration);
  }

  /** Keeps the storage's locks but answers a refusal without the holder's lease. */
  private record Silent(LockStorage storage) implements LockStorage {
    @Override
    public Attempt acquire(String name, String owner, Duration lease, boolean waiting) {
      Attempt attempt = storage.acquire(name, owner, lease, waiting);
      return attempt.isTaken() ? attempt : Attempt.refused(Duration.ZERO);
    }

    @Override
    public boolean renew(String name, String owner, long fence, Duration lease) {
      return storage.renew(name, owner, fence, lease);
    }

    @Override
    public boolean isHeld(String name, String owner, long fence) {
      return storage.isHeld(name, owner, fence);
    }

    @Override
    public boolean release(String name, String owner, long fence) {
      return storage.release(name, owner, fence);
    }
  }
}
