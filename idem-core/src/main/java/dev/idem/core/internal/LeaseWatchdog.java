package dev.idem.core.internal;

import dev.idem.core.IdempotencyStore;
import dev.idem.core.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of running work every third of the lease on one shared daemon thread.
 *
 * <p>A renewal that the store refuses means another owner took the key over: the lease is marked
 * lost at once. A renewal that fails because the store is unreachable is tried again at the next
 * tick; once a whole lease has passed without a renewal, it is marked lost too.
 *
 * <p>Starting and stopping a watch only adds to and removes from a concurrent set: most work ends
 * long before its first renewal is due, so the common case must not wake a thread or touch a timer
 * queue. The thread sleeps until the earliest renewal due, and at most {@link #MAX_SLEEP}; a new
 * watch wakes it only when its renewal falls before that. Renewals run one after another on that
 * thread, so a store that stalls delays the others (each still has two thirds of its lease).
 */
public final class LeaseWatchdog implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);
  private static final long MAX_SLEEP = TimeUnit.SECONDS.toNanos(1);

  private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
  private final Object startLock = new Object();
  private volatile Thread thread;
  private volatile long wakeAt;
  // True while the thread walks the set: a watch added then may be missed, so it must wake it.
  private volatile boolean scanning = true;
  private volatile boolean closed;

  /**
   * Starts renewing {@code running} until the returned handle is closed.
   *
   * @param leaseDuration the length each renewal asks for
   */
  public Watch watch(IdempotencyStore store, RunningLease running, Duration leaseDuration) {
    Watch watch = new Watch(store, running, leaseDuration);
    watches.add(watch);
    Thread t = thread != null ? thread : start();
    if (scanning || watch.due - wakeAt < 0) {
      LockSupport.unpark(t);
    }
    return watch;
  }

  private Thread start() {
    synchronized (startLock) {
      if (thread == null && !closed) {
        Thread t = new Thread(this::loop, "idem-lease-watchdog");
        t.setDaemon(true);
        thread = t;
        t.start();
      }
      return thread;
    }
  }

  private void loop() {
    while (!closed) {
      scanning = true;
      long now = System.nanoTime();
      long next = now + MAX_SLEEP;
      for (Watch w : watches) {
        if (now - w.due >= 0) {
          w.renew();
        }
        if (w.due - next < 0) {
          next = w.due;
        }
      }
      wakeAt = next;
      scanning = false;
      long sleep = next - System.nanoTime();
      if (sleep > 0) {
        LockSupport.parkNanos(this, sleep);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /** Renewal of one lease; closing stops it. */
  public final class Watch implements AutoCloseable {
    private final IdempotencyStore store;
    private final RunningLease running;
    private final Duration leaseDuration;
    private final long period;
    private long lastRenewal;
    private volatile long due;

    private Watch(IdempotencyStore store, RunningLease running, Duration leaseDuration) {
      this.store = store;
      this.running = running;
      this.leaseDuration = leaseDuration;
      this.period = Math.max(1, leaseDuration.toNanos() / 3);
      this.lastRenewal = System.nanoTime();
      this.due = lastRenewal + period;
    }

    private void renew() {
      due = System.nanoTime() + period;
      if (running.isLeaseLost()) {
        return;
      }
      try {
        Optional<Lease> renewed = store.renew(running.lease(), leaseDuration);
        if (renewed.isPresent()) {
          running.renewed(renewed.get());
          lastRenewal = System.nanoTime();
        } else {
          log.warn("lease on {} was taken over; the work should stop", running.key());
          running.markLost();
        }
      } catch (RuntimeException e) {
        if (System.nanoTime() - lastRenewal >= leaseDuration.toNanos()) {
          log.warn("lease on {} ran out while the store was failing", running.key(), e);
          running.markLost();
        } else {
          log.debug("lease renewal on {} failed; will try again", running.key(), e);
        }
      }
    }

    /** Stops renewing; harmless when called twice. */
    @Override
    public void close() {
      watches.remove(this);
    }
  }
}
