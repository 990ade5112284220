package dev.idem.core.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews leases every third of the lease, and reports a lease lost once its end passes without a
 * renewal: the one renewer of the project, for the engine's leases of running work and for locks
 * ({@code LockWatchdog}), each a {@link Renewable}.
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

  /** What a watch keeps alive. */
  public interface Renewable {
    /**
     * Renews once, blocking as long as the backend's call does.
     *
     * @return true when renewed, false when refused (another owner has it)
     * @throws RuntimeException the call failed; it is tried again a third of a lease later
     */
    boolean renew();

    /** Told once when the lease is lost: refused, or not renewed for a whole lease. */
    void lost();

    /** Names the lease in log messages. */
    String describe();
  }

  private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);
  private static final long MAX_SLEEP = TimeUnit.SECONDS.toNanos(1);
  // Renewals of healthy stores take milliseconds; a few threads cover a stalled call or two.
  private static final int RENEWAL_THREADS = 4;
  private static final long IDLE_SECONDS = 30;

  private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
  private final Executor renewers;
  private final @Nullable ThreadPoolExecutor ownRenewers;
  private final Object startLock = new Object();
  private volatile @Nullable Thread thread;
  private volatile long wakeAt;
  // True while the thread walks the set: a watch added then may be missed, so it must wake it.
  private volatile boolean scanning = true;
  private volatile boolean closed;

  /** Daemon platform threads, named after what they do. */
  public static final ThreadFactory PLATFORM_THREADS =
      task -> {
        Thread t = new Thread(task);
        t.setDaemon(true);
        return t;
      };

  private final ThreadFactory threads;

  /** A watchdog whose renewals run on a small pool of its own, stopped by {@link #close()}. */
  public LeaseWatchdog() {
    this(PLATFORM_THREADS);
  }

  /**
   * As {@link #LeaseWatchdog()}, its threads (the one that keeps time and the renewals') made by
   * {@code threads}.
   */
  public LeaseWatchdog(ThreadFactory threads) {
    this.threads = Objects.requireNonNull(threads, "threads");
    this.ownRenewers = renewers(threads);
    this.renewers = ownRenewers;
  }

  /**
   * A watchdog whose renewals run on {@code renewers}, which stays the caller's: {@link #close()}
   * does not shut it down. Time is still kept on this watchdog's own thread.
   */
  public LeaseWatchdog(Executor renewers) {
    this.threads = PLATFORM_THREADS;
    this.ownRenewers = null;
    this.renewers = Objects.requireNonNull(renewers, "renewers");
  }

  /** Starts renewing {@code target} every third of {@code lease} until the handle is closed. */
  public Watch watch(Renewable target, Duration lease) {
    Watch watch = new Watch(target, lease);
    watches.add(watch);
    wakeFor(watch.due);
    return watch;
  }

  private static ThreadPoolExecutor renewers(ThreadFactory threads) {
    AtomicInteger count = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            RENEWAL_THREADS,
            RENEWAL_THREADS,
            IDLE_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task ->
                named(threads.newThread(task), "idem-lease-renewal-" + count.incrementAndGet()));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  // a factory may answer null: the pool then has no thread for the task, the leases are not
  // renewed and are told lost when they run out, and the time-keeping thread is a platform one
  private static @Nullable Thread named(@Nullable Thread thread, String name) {
    if (thread != null) {
      thread.setName(name);
    }
    return thread;
  }

  /** Wakes the thread (starting it first) unless it already wakes before {@code at}. */
  private void wakeFor(long at) {
    @Nullable Thread t = thread != null ? thread : start();
    if (scanning || at - wakeAt < 0) {
      LockSupport.unpark(t);
    }
  }

  private @Nullable Thread start() {
    synchronized (startLock) {
      if (thread == null && !closed) {
        Thread made = threads.newThread(this::loop);
        Thread t = made != null ? made : PLATFORM_THREADS.newThread(this::loop);
        t.setName("idem-lease-watchdog");
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
    if (ownRenewers != null) {
      ownRenewers.shutdownNow();
    }
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /** Renewal of one lease; closing stops it. */
  public final class Watch implements AutoCloseable {
    private final Renewable target;
    private final long leaseNanos;
    private final long period;
    // due is written by the watchdog's thread only; leaseEnd under this watch's lock
    private volatile long due;
    private volatile long leaseEnd;
    private volatile boolean renewing;
    private volatile boolean stopped;
    private volatile boolean lost;

    private Watch(Renewable target, Duration lease) {
      this.target = target;
      // Times are compared as differences of nanoTime values, which must not overflow: a lease of
      // centuries is as good as one of decades.
      this.leaseNanos = Math.min(Durations.toNanosSaturated(lease), Long.MAX_VALUE / 4);
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
      if (lost || stopped) {
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

    private void expire(long now) {
      synchronized (this) {
        if (stopped || lost || now - leaseEnd < 0) {
          return;
        }
        lost = true;
      }
      log.warn(
          "{} ran out without a renewal (backend failing or not answering); the work should stop",
          target.describe());
      tellLost();
    }

    private void tellLost() {
      watches.remove(this);
      try {
        target.lost();
      } catch (RuntimeException e) {
        log.error("the loss of {} could not be told", target.describe(), e);
      }
    }

    /** On a renewal thread: one store call, sent at {@code sentAt}. */
    private void renew(long sentAt) {
      try {
        if (target.renew()) {
          accept(sentAt);
        } else {
          refused();
        }
      } catch (RuntimeException e) {
        log.debug("renewal of {} failed; will try again", target.describe(), e);
      } finally {
        renewing = false;
        if (!stopped && !closed) {
          wakeFor(due);
        }
      }
    }

    private synchronized void accept(long sentAt) {
      if (stopped || lost) {
        log.debug("late renewal of {} ignored: the lease was already lost", target.describe());
        return;
      }
      leaseEnd = sentAt + leaseNanos;
    }

    // A refusal after close is expected: the owner gave the lease up, nothing was lost.
    private void refused() {
      synchronized (this) {
        if (stopped || lost) {
          return;
        }
        lost = true;
      }
      log.warn("{} was taken over; the work should stop", target.describe());
      tellLost();
    }

    /** Whether the lease was found lost: refused, or not renewed for a whole lease. */
    public boolean isLost() {
      return lost;
    }

    /** Stops renewing; harmless when called twice. */
    @Override
    public synchronized void close() {
      stopped = true;
      watches.remove(this);
    }
  }
}
