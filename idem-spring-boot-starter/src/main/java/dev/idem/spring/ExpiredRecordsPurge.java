package dev.idem.spring;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.internal.Repeating;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Deletes the records of a store that stay until purged (the JDBC store) once they are past their
 * retention, every {@code interval}, with no code of the application's. One run deletes at most
 * {@code batches} batches of {@code batchSize} rows, each batch one statement in its own
 * transaction, so no run holds locks on more than one batch at a time or runs on for ever. Several
 * instances may purge at once: on PostgreSQL a batch skips the rows another one has locked;
 * elsewhere a batch that collides is logged and the next run goes on.
 */
public final class ExpiredRecordsPurge implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ExpiredRecordsPurge.class);

  private final IdempotencyStore store;
  private final int batchSize;
  private final int batches;
  private final AtomicLong purged = new AtomicLong();
  private final Repeating runs;

  public ExpiredRecordsPurge(
      IdempotencyStore store, Duration interval, int batchSize, int batches) {
    this(store, new Schedule(interval, batchSize, batches), IdemThreads.platform());
  }

  /** How often the purge runs and how much it deletes each time. */
  public record Schedule(Duration interval, int batchSize, int batches) {}

  /** As the other constructor, its thread made by {@code threads}. */
  public ExpiredRecordsPurge(IdempotencyStore store, Schedule schedule, ThreadFactory threads) {
    Duration interval = schedule.interval();
    int batchSize = schedule.batchSize();
    int batches = schedule.batches();
    Objects.requireNonNull(threads, "threads");
    this.store = Objects.requireNonNull(store, "store");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "idem.jdbc.cleanup.interval must be positive, was " + interval);
    }
    if (batchSize < 1 || batches < 1) {
      throw new IllegalArgumentException(
          "idem.jdbc.cleanup.batch-size and max-batches must be at least 1, were "
              + batchSize
              + " and "
              + batches);
    }
    this.batchSize = batchSize;
    this.batches = batches;
    this.runs = new Repeating(threads, "idem-purge", interval, this::runOnce);
  }

  /**
   * Runs one purge now: batches until one deletes fewer rows than a batch holds, or the run's
   * number of batches is spent. A failure is logged and ends the run.
   *
   * @return the number of records deleted
   */
  public int runOnce() {
    int total = 0;
    try {
      for (int batch = 0; batch < batches; batch++) {
        int deleted = store.purgeExpired(batchSize);
        total += deleted;
        if (deleted < batchSize) {
          break;
        }
      }
    } catch (RuntimeException e) {
      log.warn("Purging expired idempotency records failed; the next run tries again", e);
    }
    purged.addAndGet(total);
    return total;
  }

  /** Records deleted by this purge since start-up. */
  public long purged() {
    return purged.get();
  }

  @Override
  public void start() {
    runs.start();
  }

  @Override
  public void stop() {
    runs.stop();
  }

  @Override
  public boolean isRunning() {
    return runs.isRunning();
  }
}
