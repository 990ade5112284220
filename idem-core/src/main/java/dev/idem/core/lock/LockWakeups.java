package dev.idem.core.lock;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lets a thread that releases a lock wake the threads of the same provider that wait for it, so
 * that they try again at once instead of sleeping out their pause. Waiters in other processes are
 * reached only through {@link LockStorage#listen}; otherwise they find the lock free at their next
 * attempt.
 *
 * <p>A name has a {@link Signal} only while some thread waits for it, so idle names cost nothing.
 */
final class LockWakeups {

  private final ConcurrentMap<String, Signal> signals = new ConcurrentHashMap<>();

  /** Registers the calling thread as interested in {@code name}; pair with {@link #leave}. */
  Signal join(String name) {
    return signals.compute(
        name,
        (key, existing) -> {
          Signal signal = existing == null ? new Signal() : existing;
          signal.visitors++;
          return signal;
        });
  }

  /** Undoes one {@link #join} of {@code name}; the last one to leave drops the signal. */
  void leave(String name) {
    signals.computeIfPresent(name, (key, signal) -> --signal.visitors == 0 ? null : signal);
  }

  /** Wakes every thread waiting on {@code name} now. */
  void wake(String name) {
    Signal signal = signals.get(name);
    if (signal != null) {
      signal.fire();
    }
  }

  /** The number of names someone waits for. */
  int size() {
    return signals.size();
  }

  /**
   * A counter of releases of one name, and the turn to try it. A waiter reads {@link #version()}
   * before it tries the lock and passes it to {@link #await}, so a release that happens while it
   * tries is not missed.
   */
  static final class Signal {
    // Changed only inside ConcurrentHashMap.compute for this name, which runs one at a time.
    private int visitors;
    private long version;
    // Fair: waiters get their turn in the order they asked for it.
    private final Semaphore turn = new Semaphore(1, true);
    private final ReentrantLock releases = new ReentrantLock();
    private final Condition released = releases.newCondition();

    /**
     * Waits up to {@code nanos} for this name's turn; pair a true answer with {@link #endTurn}.
     *
     * @return false if the time ran out first
     */
    boolean takeTurn(long nanos) throws InterruptedException {
      return turn.tryAcquire(nanos, TimeUnit.NANOSECONDS);
    }

    /** Hands the turn to the next waiter. */
    void endTurn() {
      turn.release();
    }

    /** The number of releases so far. */
    long version() {
      releases.lock();
      try {
        return version;
      } finally {
        releases.unlock();
      }
    }

    void fire() {
      releases.lock();
      try {
        version++;
        released.signalAll();
      } finally {
        releases.unlock();
      }
    }

    /**
     * Waits up to {@code nanos} for a release after {@code seen}. A lock and its condition rather
     * than a monitor: a virtual thread that waits here parks and leaves its carrier free.
     *
     * @return true if a release came (or had already come), false if the time ran out
     */
    boolean await(long seen, long nanos) throws InterruptedException {
      releases.lock();
      try {
        long left = nanos;
        while (version == seen && left > 0) {
          left = released.awaitNanos(left);
        }
        return version != seen;
      } finally {
        releases.unlock();
      }
    }
  }
}
