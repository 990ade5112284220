package dev.idem.jdbc;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.lock.LockHandle;
import dev.idem.core.lock.LockProvider;
import dev.idem.core.lock.StoredLockProvider;
import dev.idem.jdbc.internal.JdbcLockStorage;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Leased locks in a database table: one row per lock name holding the current owner token, the
 * fence and the end of the lease, in the database's clock. A lock is taken by one conditional
 * upsert that succeeds only when the row is missing, released, or its lease has ended, and then
 * writes a fresh random owner and {@code fence + 1}. Renewing and releasing are updates that match
 * name, owner and fence, so a holder whose lease ran out can never extend or release its
 * successor's lock. Create the table with {@link JdbcSchema#createIfMissing(DataSource,
 * JdbcLockConfig)} or the {@code locks-*.sql} files in this jar.
 *
 * <p><b>A lock is an optimisation.</b> A holder that stalls past its lease loses the lock without
 * knowing it, so the write the lock protects must itself check the {@linkplain LockHandle#fence()
 * fence} ({@code ... WHERE last_fence < :fence}) or rest on a unique index.
 *
 * <p>Handles and waiting are those of {@link StoredLockProvider}: a waiter retries with exponential
 * backoff and full jitter (a random pause of up to 5 ms, then up to 10, 20, ... 200 ms, never past
 * its wait). A release through a handle of this provider wakes this provider's waiters for the name
 * at once; waiters in other processes notice at their next attempt, and so does everybody when a
 * lease runs out.
 *
 * <p>A released row stays, with no owner, so the fence keeps growing. {@link #purgeIdle(int)}
 * deletes rows idle for longer than {@link JdbcLockConfig#fenceRetention()}; the next acquisition
 * of such a name still gets a fence above all before it, since a fence is the greater of the last
 * one + 1 and the database's clock in microseconds (as long as that clock does not step back by
 * more than the time the name was idle).
 */
public final class JdbcLockProvider implements LockProvider {

  private final JdbcLockStorage storage;
  private final LockProvider locks;

  /** A provider on {@code dataSource} with {@code config}'s table and dialect. */
  public JdbcLockProvider(DataSource dataSource, JdbcLockConfig config) {
    this.storage =
        new JdbcLockStorage(
            dataSource, config.dialect().sql(), config.table(), config.fenceRetention());
    this.locks = new StoredLockProvider(storage);
  }

  /**
   * {@inheritDoc}
   *
   * @throws IdempotencyStoreException if the database cannot be reached
   */
  @Override
  public Optional<LockHandle> tryLock(String name, Duration wait, Duration lease)
      throws InterruptedException {
    return locks.tryLock(name, wait, lease);
  }

  /**
   * Deletes up to {@code limit} rows of locks that are released or expired and have been idle for
   * the fence retention, and returns how many it deleted. Their fences start again at 1 (see the
   * class comment). Run it now and then, as with {@link JdbcIdempotencyStore#purgeExpired(int)}.
   */
  public int purgeIdle(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    return storage.purgeIdle(limit);
  }
}
