package dev.idem.jdbc;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.lock.LockHandle;
import dev.idem.core.lock.LockProvider;
import dev.idem.core.lock.internal.Durations;
import dev.idem.core.lock.internal.LockArguments;
import dev.idem.jdbc.internal.Jdbc;
import dev.idem.jdbc.internal.LockSql;
import dev.idem.jdbc.internal.LockWakeups;
import dev.idem.jdbc.internal.Params;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>A waiter retries with exponential backoff and full jitter (a random pause of up to 5 ms, then
 * up to 10, 20, ... 200 ms, never past its wait). A release through a handle of this provider wakes
 * this provider's waiters for the name at once; waiters in other processes notice at their next
 * attempt, and so does everybody when a lease runs out.
 *
 * <p>A released row stays, with no owner, so the fence keeps growing. {@link #purgeIdle(int)}
 * deletes rows idle for longer than {@link JdbcLockConfig#fenceRetention()}; the next acquisition
 * of such a name still gets a fence above all before it, since a fence is the greater of the last
 * one + 1 and the database's clock in microseconds (as long as that clock does not step back by
 * more than the time the name was idle).
 */
public final class JdbcLockProvider implements LockProvider {

  private static final Logger log = LoggerFactory.getLogger(JdbcLockProvider.class);
  private static final long FIRST_PAUSE = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long LONGEST_PAUSE = TimeUnit.MILLISECONDS.toNanos(200);
  private static final int RACES = 8;
  // Keeps "now + lease + retention" inside a BIGINT however long a caller asks for.
  private static final long LONGEST_MS = Long.MAX_VALUE / 4;

  private final Jdbc jdbc;
  private final JdbcDialect dialect;
  private final LockSql sql;
  private final long retentionMs;
  private final LockWakeups wakeups = new LockWakeups();

  /** A provider on {@code dataSource} with {@code config}'s table and dialect. */
  public JdbcLockProvider(DataSource dataSource, JdbcLockConfig config) {
    this.jdbc = new Jdbc(dataSource, null);
    this.dialect = config.dialect();
    this.sql = LockSql.of(dialect, config.table());
    this.retentionMs = millis(config.fenceRetention());
  }

  /**
   * {@inheritDoc}
   *
   * @throws IdempotencyStoreException if the database cannot be reached
   */
  @Override
  public Optional<LockHandle> tryLock(String name, Duration wait, Duration lease)
      throws InterruptedException {
    LockArguments.check(name, wait, lease);
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    long start = System.nanoTime();
    long waitNanos = Durations.toNanosSaturated(wait);
    long leaseMs = millis(lease);
    LockWakeups.Signal released = wakeups.join(name);
    try {
      long pause = FIRST_PAUSE;
      while (true) {
        long seen = released.version();
        Optional<LockHandle> handle = acquire(name, leaseMs);
        long left = waitNanos - (System.nanoTime() - start);
        if (handle.isPresent() || left <= 0) {
          return handle;
        }
        long jittered = ThreadLocalRandom.current().nextLong(Math.min(pause, left) + 1);
        pause = released.await(seen, jittered) ? FIRST_PAUSE : Math.min(pause * 2, LONGEST_PAUSE);
      }
    } finally {
      wakeups.leave(name);
    }
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
    return jdbc.run("purgeIdle", c -> Params.update(c, sql.purge(), limit));
  }

  private Optional<LockHandle> acquire(String name, long leaseMs) {
    return jdbc.run(
        "tryLock",
        c -> {
          for (int race = 0; race < RACES; race++) {
            String owner = newOwner();
            try {
              Long fence = attempt(c, name, owner, leaseMs);
              return fence == null
                  ? Optional.<LockHandle>empty()
                  : Optional.<LockHandle>of(new Handle(name, fence, owner));
            } catch (SQLException e) {
              // Two first acquisitions of a name raced on the insert, or deadlocked; the row
              // exists now, so the next attempt decides.
              if (!dialect.isDuplicateKey(e) && !dialect.isTransient(e)) {
                throw e;
              }
              if (!c.getAutoCommit()) {
                c.rollback();
              }
            }
          }
          throw new IdempotencyStoreException("lock " + name + " kept racing; try again");
        });
  }

  /** Returns the fence if this attempt took the lock, or null. */
  private Long attempt(Connection c, String name, String owner, long leaseMs) throws SQLException {
    Object[] params = {name, owner, leaseMs, leaseMs + retentionMs};
    if (sql.acquireReturnsRow()) {
      try (PreparedStatement ps = c.prepareStatement(sql.acquire())) {
        Params.bind(ps, params);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? rs.getLong("fence") : null;
        }
      }
    }
    Params.update(c, sql.acquire(), params);
    try (PreparedStatement ps = c.prepareStatement(sql.select())) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && owner.equals(rs.getString("owner")) ? rs.getLong("fence") : null;
      }
    }
  }

  private static long millis(Duration d) {
    return d.compareTo(Duration.ofMillis(LONGEST_MS)) >= 0 ? LONGEST_MS : Math.max(1, d.toMillis());
  }

  // Owners tell acquisitions apart and are never shown to anyone; they need not be unguessable.
  private static String newOwner() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return new UUID(random.nextLong(), random.nextLong()).toString();
  }

  /** One acquisition; every statement matches name, owner and fence. */
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

    /**
     * {@inheritDoc}
     *
     * @throws IdempotencyStoreException if the database cannot be reached
     */
    @Override
    public boolean renew(Duration lease) {
      LockArguments.checkLease(lease);
      long ms = millis(lease);
      int renewed =
          jdbc.run(
              "renew",
              c -> Params.update(c, sql.renew(), ms, ms + retentionMs, name, owner, fence));
      return renewed == 1;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IdempotencyStoreException if the database cannot be reached
     */
    @Override
    public boolean isHeld() {
      return jdbc.run("isHeld", c -> Params.exists(c, sql.held(), name, owner, fence));
    }

    /**
     * {@inheritDoc}
     *
     * <p>If the database cannot be reached, the failure is logged and the lock ends with its lease.
     */
    @Override
    public void close() {
      try {
        int released =
            jdbc.run(
                "unlock", c -> Params.update(c, sql.release(), retentionMs, name, owner, fence));
        if (released == 1) {
          wakeups.wake(name);
        } else {
          log.debug("Lock '{}' (fence {}) was no longer held when closed", name, fence);
        }
      } catch (IdempotencyStoreException e) {
        log.warn("Could not release lock '{}' (fence {}); it ends with its lease", name, fence, e);
      }
    }
  }
}
