package dev.idem.core.lock;

import dev.idem.core.internal.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The locks of an {@link InMemoryLockProvider}: one entry per held name, by the given clock. Fences
 * come from one counter for the whole storage, so they never restart while it lives, even after a
 * name's entry was dropped. An entry goes when its lock is released; entries whose lease ran out
 * without a release are swept whenever the table has doubled since the last sweep.
 */
final class InMemoryLockStorage implements LockStorage {

  private static final int MIN_SWEEP_SIZE = 64;

  private final Clock clock;
  private final Map<String, Entry> entries = new HashMap<>();
  private long lastFence;
  private int sweepAt = MIN_SWEEP_SIZE;

  InMemoryLockStorage(Clock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized Attempt acquire(String name, String owner, Duration lease, boolean waiting) {
    Instant now = clock.instant();
    Entry held = entries.get(name);
    if (held != null && held.heldAt(now)) {
      return Attempt.refused(Duration.between(now, held.expiresAt()));
    }
    if (held == null && entries.size() >= sweepAt) {
      entries.values().removeIf(e -> !e.heldAt(now));
      sweepAt = Math.max(MIN_SWEEP_SIZE, entries.size() * 2);
    }
    entries.put(name, new Entry(owner, ++lastFence, Durations.plusSaturated(now, lease)));
    return Attempt.taken(lastFence);
  }

  @Override
  public synchronized boolean renew(String name, String owner, long fence, Duration lease) {
    Instant now = clock.instant();
    if (!holds(name, owner, fence, now)) {
      return false;
    }
    entries.put(name, new Entry(owner, fence, Durations.plusSaturated(now, lease)));
    return true;
  }

  @Override
  public synchronized boolean isHeld(String name, String owner, long fence) {
    return holds(name, owner, fence, clock.instant());
  }

  @Override
  public synchronized boolean release(String name, String owner, long fence) {
    Entry entry = entries.get(name);
    if (entry == null || entry.fence() != fence || !entry.owner().equals(owner)) {
      return false;
    }
    entries.remove(name);
    return entry.heldAt(clock.instant());
  }

  /** One storage in one process, used by one provider: every release wakes its waiters. */
  @Override
  public boolean announcesReleases() {
    return true;
  }

  synchronized int size() {
    return entries.size();
  }

  private boolean holds(String name, String owner, long fence, Instant now) {
    Entry entry = entries.get(name);
    return entry != null
        && entry.fence() == fence
        && entry.owner().equals(owner)
        && entry.heldAt(now);
  }

  private record Entry(String owner, long fence, Instant expiresAt) {
    boolean heldAt(Instant now) {
      return now.isBefore(expiresAt);
    }
  }
}
