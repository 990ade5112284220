package dev.idem.core.lock;

import java.util.Comparator;
import java.util.Iterator;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The watched locks of one {@link LockWatchdog}, ordered by when each is next due for renewal, and
 * the one scheduler task (the tick) that renews those due and then waits for the next.
 *
 * <p>A scheduler task per lock would be simpler, but most locks are closed long before their first
 * renewal: scheduling a task at the head of an empty queue wakes the scheduler thread, so each
 * watch of a short lock would cost a thread switch. Here a watch only adds the lock to a sorted
 * set; the tick is rescheduled only when the new lock is due before it, which for locks of one
 * lease length is never while the tick is pending.
 */
final class Renewals {

  private static final Comparator<WatchedLock> BY_DUE =
      Comparator.comparingLong(WatchedLock::dueAt).thenComparingLong(WatchedLock::sequence);

  private final ScheduledExecutorService scheduler;
  // Times are nanoseconds since this origin, so they stay positive and compare plainly.
  private final long origin = System.nanoTime();
  private final AtomicLong sequence = new AtomicLong();
  // A lock's due time changes only while it is out of this set, so the order never breaks.
  private final ConcurrentSkipListSet<WatchedLock> waiting = new ConcurrentSkipListSet<>(BY_DUE);
  private final Object tickGuard = new Object();
  // When the pending tick runs; Long.MAX_VALUE while none is pending. Written under tickGuard.
  private volatile long tickAt = Long.MAX_VALUE;
  private ScheduledFuture<?> tick;
  private volatile boolean stopped;

  Renewals(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
  }

  /** Now, on this set's clock. */
  long now() {
    return System.nanoTime() - origin;
  }

  /** A number no other lock of this set gets, to order locks due at the same time. */
  long nextSequence() {
    return sequence.incrementAndGet();
  }

  /** Whether {@link #stop()} was called. */
  boolean isStopped() {
    return stopped;
  }

  /** Puts {@code lock} in line for its due time, which must be set; nothing after a stop. */
  void add(WatchedLock lock) {
    if (stopped) {
      return;
    }
    waiting.add(lock);
    if (lock.isClosed()) {
      // Closed while the tick renewed it: its close may have looked for it before this add.
      waiting.remove(lock);
      return;
    }
    tickBy(lock.dueAt());
  }

  /** Takes {@code lock} out of line; it is renewed no more. */
  void remove(WatchedLock lock) {
    waiting.remove(lock);
  }

  /**
   * Stops every renewal; a tick already running finishes the lock it is renewing and renews no
   * other.
   */
  void stop() {
    synchronized (tickGuard) {
      stopped = true;
      if (tick != null) {
        tick.cancel(false);
      }
      tickAt = Long.MAX_VALUE;
    }
    waiting.clear();
  }

  private void tickBy(long at) {
    if (at >= tickAt) {
      return;
    }
    synchronized (tickGuard) {
      if (stopped || at >= tickAt) {
        return;
      }
      ScheduledFuture<?> later = tick;
      try {
        tick = scheduler.schedule(this::runTick, Math.max(0, at - now()), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException shutDown) {
        // The scheduler was shut down: renewal ends and leases run out, as close() promises.
        return;
      }
      tickAt = at;
      if (later != null) {
        later.cancel(false);
      }
    }
  }

  private void runTick() {
    // From here on a lock added is scheduled by its own add, or seen below: nothing is missed.
    synchronized (tickGuard) {
      tickAt = Long.MAX_VALUE;
      tick = null;
    }
    long start = now();
    try {
      while (true) {
        WatchedLock first = first();
        if (stopped || first == null || first.dueAt() > start) {
          break;
        }
        // Only the tick and close() remove; a false answer means the lock was just closed.
        if (waiting.remove(first)) {
          first.renewOnce();
        }
      }
    } finally {
      WatchedLock next = first();
      if (next != null) {
        tickBy(next.dueAt());
      }
    }
  }

  private WatchedLock first() {
    Iterator<WatchedLock> inOrder = waiting.iterator();
    return inOrder.hasNext() ? inOrder.next() : null;
  }
}
