package dev.idem.core.internal;

import dev.idem.core.IdempotencyStore;
import dev.idem.core.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of running work every third of the lease, and tells the work its lease is lost
 * once the lease's end passes without a renewal.
 *
 * <p>One shared daemon thread keeps time: it starts each renewal when it is due and marks a lease
 * lost when its end has passed. The renewals themselves (store calls, which may block for as long
 * as a stalled store lets them) run on a small pool of daemon threads, at most one in flight per
 * watch, so a call that hangs on one key neither delays another key's renewal nor the lost signal
 * of its own. A lease's end is counted from when the last successful renewal was sent (or the watch
 * started): the store extended it by the lease from a moment no earlier than that.
 *
 * <p>A renewal that the store refuses means another owner took the key over: the lease is marked
 * lost at once. A renewal that fails is tried again a third of a lease after the failed one
 * started. An answer that arrives after the lease was marked lost is ignored: a lost lease stays
 * lost. How long one call may block is the store's business (its client's command, socket or query
 * timeout); until it returns, no other renewal of that lease starts.
 *
 * <p>Starting and stopping a watch only adds to and removes from a concurrent set: most work ends
 * long before its first renewal is due, so the common case must not wake a thread or touch a timer
 * queue. The thread sleeps until the earliest renewal or lease end due, and at most {@link
 * #MAX_SLEEP}; a new watch wakes it only when its renewal falls before that. Renewal threads are
 * started on first use and end after {@link #IDLE_SECONDS} without work.
 */
public final class LeaseWatchdog implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);
  private static final long MAX_SLEEP = TimeUnit.SECONDS.toNanos(1);
  // Renewals of healthy stores take milliseconds; a few threads cover a stalled call or two.
  private static final int RENEWAL_THREADS = 4;
  private static final long IDLE_SECONDS = 30;

  private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
  private final ThreadPoolExecutor renewers = renewers();
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
    wakeFor(watch.due);
    return watch;
  }

  private static ThreadPoolExecutor renewers() {
    AtomicInteger count = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            RENEWAL_THREADS,
            RENEWAL_THREADS,
            IDLE_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread t = new Thread(task, "idem-lease-renewal-" + count.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /** Wakes the thread (starting it first) unless it already wakes before {@code at}. */
  private void wakeFor(long at) {
    Thread t = thread != null ? thread : start();
    if (scanning || at - wakeAt < 0) {
      LockSupport.unpark(t);
    }
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
        long wanted = w.tick(now);
        if (wanted - next < 0) {
          next = wanted;
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

  /** Stops renewing; leases of work still running end when they end, and are not reported lost. */
  @Override
  public void close() {
    closed = true;
    renewers.shutdownNow();
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
    private final long leaseNanos;
    private final long period;
    // due is written by the watchdog's thread only; leaseEnd under this watch's lock
    private volatile long due;
    private volatile long leaseEnd;
    private volatile boolean renewing;
    private volatile boolean stopped;

    private Watch(IdempotencyStore store, RunningLease running, Duration leaseDuration) {
      this.store = store;
      this.running = running;
      this.leaseDuration = leaseDuration;
      this.leaseNanos = leaseDuration.toNanos();
      this.period = Math.max(1, leaseNanos / 3);
      long now = System.nanoTime();
      this.due = now + period;
      this.leaseEnd = now + leaseNanos;
    }

    /**
     * On the watchdog's thread: marks the lease lost if its end has passed, else starts a renewal
     * if one is due and none is in flight. Returns when this watch next needs the thread.
     */
    private long tick(long now) {
      if (running.isLeaseLost()) {
        return now + MAX_SLEEP;
      }
      if (now - leaseEnd >= 0) {
        expire(now);
        return now + MAX_SLEEP;
      }
      if (!renewing && now - due >= 0) {
        renewing = true;
        due = now + period;
        try {
          renewers.execute(() -> renew(now));
        } catch (RejectedExecutionException shutDown) {
          renewing = false;
        }
      }
      return renewing || leaseEnd - due < 0 ? leaseEnd : due;
    }

    private synchronized void expire(long now) {
      if (!stopped && !running.isLeaseLost() && now - leaseEnd >= 0) {
        log.warn(
            "lease on {} ran out without a renewal (store failing or not answering); the work"
                + " should stop",
            running.key());
        running.markLost();
      }
    }

    /** On a renewal thread: one store call, sent at {@code sentAt}. */
    private void renew(long sentAt) {
      try {
        Optional<Lease> renewed = store.renew(running.lease(), leaseDuration);
        if (renewed.isPresent()) {
          accept(renewed.get(), sentAt);
        } else if (!stopped) {
          log.warn("lease on {} was taken over; the work should stop", running.key());
          running.markLost();
        }
      } catch (RuntimeException e) {
        log.debug("lease renewal on {} failed; will try again", running.key(), e);
      } finally {
        renewing = false;
        if (!stopped && !closed) {
          wakeFor(due);
        }
      }
    }

    private synchronized void accept(Lease renewed, long sentAt) {
      if (stopped || running.isLeaseLost()) {
        log.debug("late renewal of {} ignored: the lease was already lost", running.key());
        return;
      }
      running.renewed(renewed);
      leaseEnd = sentAt + leaseNanos;
    }

    /** Stops renewing; harmless when called twice. */
    @Override
    public void close() {
      stopped = true;
      watches.remove(this);
    }
  }
}
