package dev.idem.core.lock;

import dev.idem.core.lock.internal.Durations;
import dev.idem.core.lock.internal.LockArguments;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link LockProvider} for one JVM: tests, single-instance services, and as the reference that
 * other backends are checked against.
 *
 * <p>Leases are measured on the given {@link Clock}; {@code wait} is measured in real time, since a
 * waiting thread blocks in real time. A waiter sleeps until the lock is released or, because expiry
 * raises no event, until the holder's lease ends; then it looks again.
 *
 * <p>Fencing tokens come from one counter for the whole provider, so they grow with every
 * acquisition of every name and never restart while the provider lives, even after a name's entry
 * was dropped. An entry is dropped as soon as its lock is released and nobody waits for it; entries
 * whose lease ran out without a close are swept whenever the table has doubled since the last
 * sweep, so it stays within about twice the number of live locks.
 */
public final class InMemoryLockProvider implements LockProvider {

  private static final int MIN_SWEEP_SIZE = 64;

  private final Clock clock;
  private final ReentrantLock mutex = new ReentrantLock();
  private final Map<String, Entry> entries = new HashMap<>();
  private long lastFence;
  private int sweepAt = MIN_SWEEP_SIZE;

  /** A provider whose leases follow {@link Clock#systemUTC()}. */
  public InMemoryLockProvider() {
    this(Clock.systemUTC());
  }

  /** A provider whose leases follow {@code clock}; tests pass a clock they can move. */
  public InMemoryLockProvider(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock must not be null");
  }

  @Override
  public Optional<LockHandle> tryLock(String name, Duration wait, Duration lease)
      throws InterruptedException {
    LockArguments.check(name, wait, lease);
    long start = System.nanoTime();
    long waitNanos = Durations.toNanosSaturated(wait);
    mutex.lockInterruptibly();
    try {
      Entry entry = entryFor(name);
      entry.visitors++;
      try {
        while (true) {
          Instant now = clock.instant();
          if (!entry.heldAt(now)) {
            entry.owner = UUID.randomUUID().toString();
            entry.expiresAt = Durations.plusSaturated(now, lease);
            return Optional.of(new Handle(name, ++lastFence, entry.owner));
          }
          long left = waitNanos - (System.nanoTime() - start);
          if (left <= 0) {
            return Optional.empty();
          }
          long untilExpiry =
              Math.max(1, Durations.toNanosSaturated(Duration.between(now, entry.expiresAt)));
          entry.released.awaitNanos(Math.min(left, untilExpiry));
        }
      } finally {
        entry.visitors--;
        dropIfIdle(entry);
      }
    } finally {
      mutex.unlock();
    }
  }

  /** The number of names the provider currently keeps state for. */
  int entryCount() {
    mutex.lock();
    try {
      return entries.size();
    } finally {
      mutex.unlock();
    }
  }

  private Entry entryFor(String name) {
    Entry entry = entries.get(name);
    if (entry == null) {
      if (entries.size() >= sweepAt) {
        Instant now = clock.instant();
        entries.values().removeIf(e -> e.visitors == 0 && !e.heldAt(now));
        sweepAt = Math.max(MIN_SWEEP_SIZE, entries.size() * 2);
      }
      entry = new Entry(name, mutex.newCondition());
      entries.put(name, entry);
    }
    return entry;
  }

  private void dropIfIdle(Entry entry) {
    if (entry.visitors == 0 && !entry.heldAt(clock.instant())) {
      entries.remove(entry.name, entry);
    }
  }

  /** State of one name, guarded by the provider's mutex. */
  private static final class Entry {
    final String name;
    final Condition released;
    String owner;
    Instant expiresAt = Instant.MIN;
    // Threads inside tryLock for this name. While any is, the entry stays in the table: a waiter
    // sleeps on this entry's condition and would miss the release of a replacement entry.
    int visitors;

    Entry(String name, Condition released) {
      this.name = name;
      this.released = released;
    }

    boolean heldAt(Instant now) {
      return owner != null && now.isBefore(expiresAt);
    }
  }

  private final class Handle implements LockHandle {
    private final String name;
    private final long fence;
    private final String owner;

    Handle(String name, long fence, String owner) {
      this.name = name;
      this.fence = fence;
      this.owner = owner;
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
      mutex.lock();
      try {
        Entry entry = entries.get(name);
        Instant now = clock.instant();
        if (entry == null || !owner.equals(entry.owner) || !entry.heldAt(now)) {
          return false;
        }
        entry.expiresAt = Durations.plusSaturated(now, lease);
        return true;
      } finally {
        mutex.unlock();
      }
    }

    @Override
    public boolean isHeld() {
      mutex.lock();
      try {
        Entry entry = entries.get(name);
        return entry != null && owner.equals(entry.owner) && entry.heldAt(clock.instant());
      } finally {
        mutex.unlock();
      }
    }

    @Override
    public void close() {
      mutex.lock();
      try {
        Entry entry = entries.get(name);
        if (entry != null && owner.equals(entry.owner)) {
          entry.owner = null;
          entry.released.signalAll();
          dropIfIdle(entry);
        }
      } finally {
        mutex.unlock();
      }
    }
  }
}
