package dev.idem.core.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link LockProvider} for one JVM: tests, single-instance services, and as the reference that
 * other backends are checked against. It is the {@link StoredLockProvider} over a table in memory.
 *
 * <p>Leases are measured on the given {@link Clock}; {@code wait} is measured in real time, since a
 * waiting thread blocks in real time. A waiter sleeps until the lock is released or, because expiry
 * raises no event, until the holder's lease ends; then it looks again.
 *
 * <p>Fencing tokens come from one counter for the whole provider, so they grow with every
 * acquisition of every name and never restart while the provider lives, even after a name's entry
 * was dropped. An entry is dropped as soon as its lock is released; entries whose lease ran out
 * without a close are swept whenever the table has doubled since the last sweep, so it stays within
 * about twice the number of live locks.
 */
public final class InMemoryLockProvider implements LockProvider {

  private final InMemoryLockStorage storage;
  private final StoredLockProvider locks;

  /** A provider whose leases follow {@link Clock#systemUTC()}. */
  public InMemoryLockProvider() {
    this(Clock.systemUTC());
  }

  /** A provider whose leases follow {@code clock}; tests pass a clock they can move. */
  public InMemoryLockProvider(Clock clock) {
    this.storage = new InMemoryLockStorage(Objects.requireNonNull(clock, "clock must not be null"));
    this.locks = new StoredLockProvider(storage);
  }

  @Override
  public Optional<LockHandle> tryLock(String name, Duration wait, Duration lease)
      throws InterruptedException {
    return locks.tryLock(name, wait, lease);
  }

  /** The number of names the provider currently keeps state for. */
  int entryCount() {
    return storage.size();
  }
}
