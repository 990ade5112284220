package dev.idem.core.internal;

import dev.idem.core.IdempotencyStore;
import dev.idem.core.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of running work every third of the lease on one shared daemon thread.
 *
 * <p>A renewal that the store refuses means another owner took the key over: the lease is marked
 * lost at once. A renewal that fails because the store is unreachable is tried again at the next
 * tick; once the lease's own end has passed without a renewal, it is marked lost too.
 */
public final class LeaseWatchdog implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

  private final ScheduledExecutorService scheduler;

  public LeaseWatchdog() {
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "idem-lease-watchdog");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts renewing {@code running} until the returned handle is closed.
   *
   * @param leaseDuration the length each renewal asks for
   */
  public Watch watch(IdempotencyStore store, RunningLease running, Duration leaseDuration) {
    long periodNanos = Math.max(1, leaseDuration.toNanos() / 3);
    long[] lastRenewal = {System.nanoTime()};
    ScheduledFuture<?> task =
        scheduler.scheduleAtFixedRate(
            () -> renew(store, running, leaseDuration, lastRenewal),
            periodNanos,
            periodNanos,
            TimeUnit.NANOSECONDS);
    return () -> task.cancel(false);
  }

  private static void renew(
      IdempotencyStore store, RunningLease running, Duration leaseDuration, long[] lastRenewal) {
    if (running.isLeaseLost()) {
      return;
    }
    try {
      Optional<Lease> renewed = store.renew(running.lease(), leaseDuration);
      if (renewed.isPresent()) {
        running.renewed(renewed.get());
        lastRenewal[0] = System.nanoTime();
      } else {
        log.warn("lease on {} was taken over; the work should stop", running.key());
        running.markLost();
      }
    } catch (RuntimeException e) {
      if (System.nanoTime() - lastRenewal[0] >= leaseDuration.toNanos()) {
        log.warn("lease on {} ran out while the store was failing", running.key(), e);
        running.markLost();
      } else {
        log.debug("lease renewal on {} failed; will try again", running.key(), e);
      }
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }

  /** Renewal of one lease; closing stops it. */
  public interface Watch extends AutoCloseable {
    /** Stops renewing; harmless when called twice. */
    @Override
    void close();
  }
}
