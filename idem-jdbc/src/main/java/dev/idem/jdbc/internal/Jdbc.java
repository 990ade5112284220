package dev.idem.jdbc.internal;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.jdbc.TransactionConnection;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Runs one unit of store work on a pooled connection and turns every {@link SQLException} into an
 * {@link IdempotencyStoreException}. A connection that comes out of the pool without auto-commit is
 * committed after the work (or rolled back after a failure), so a plain-mode call never leaves half
 * its writes behind.
 */
public final class Jdbc {

  /** Work on a connection. */
  @FunctionalInterface
  public interface Work<T extends @Nullable Object> {
    T run(Connection connection) throws SQLException;
  }

  // sets a connection's network timeout on the calling thread (the drivers that use the executor
  // run the change through it)
  private static final Executor HERE = Runnable::run;

  private final DataSource dataSource;
  private final @Nullable TransactionConnection transactions;
  private final Duration callTimeout;

  /**
   * @param transactions where the thread's transaction is found (join mode), or null for none
   * @param callTimeout the bound on a call on a pooled connection ({@link #run(String, Work)})
   */
  public Jdbc(
      DataSource dataSource, @Nullable TransactionConnection transactions, Duration callTimeout) {
    this.dataSource = dataSource;
    this.transactions = transactions;
    this.callTimeout = callTimeout;
  }

  /** True when a transaction is active on this thread and the store writes in it. */
  public boolean joined() {
    return transactions != null && transactions.current() != null;
  }

  /**
   * Runs {@code work} on the thread's transaction connection when there is one (neither committed
   * nor closed here: the transaction's owner decides), else on a pooled connection committed at
   * once, every read of whose socket is bounded by the call timeout. {@code what} names the
   * operation in the error message.
   */
  public <T extends @Nullable Object> T run(String what, Work<T> work) {
    return run(what, callTimeout, work);
  }

  private <T extends @Nullable Object> T run(String what, Duration timeout, Work<T> work) {
    Connection joined = transactions == null ? null : transactions.current();
    if (joined != null) {
      try {
        return work.run(joined);
      } catch (SQLException e) {
        throw failure(what, e);
      }
    }
    try (Connection c = dataSource.getConnection()) {
      int restore = bound(c, timeout);
      boolean auto = c.getAutoCommit();
      try {
        T result = work.run(c);
        if (!auto) {
          c.commit();
        }
        return result;
      } catch (SQLException | RuntimeException e) {
        if (!auto) {
          c.rollback();
        }
        throw e;
      } finally {
        unbound(c, restore);
      }
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  // Bounds every read of the connection's socket at timeout, unless it is bounded as tight
  // already; answers the bound to put back, or -1 when it was left alone.
  private static int bound(Connection c, Duration timeout) throws SQLException {
    int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    try {
      int current = c.getNetworkTimeout();
      if (current > 0 && current <= millis) {
        return -1;
      }
      c.setNetworkTimeout(HERE, millis);
      return current;
    } catch (SQLFeatureNotSupportedException | UnsupportedOperationException e) {
      return -1; // a driver without network timeouts (an embedded database has no socket)
    }
  }

  private static void unbound(Connection c, int restore) {
    if (restore < 0) {
      return;
    }
    try {
      c.setNetworkTimeout(HERE, restore);
    } catch (SQLException | RuntimeException e) {
      // a connection the bound broke is closed already; the pool drops it
    }
  }

  private static IdempotencyStoreException failure(String what, SQLException e) {
    return new IdempotencyStoreException(
        "idempotency store failed at " + what + ": " + e.getMessage(), e);
  }

  /** Work that answers true or false on a connection it was handed. */
  @FunctionalInterface
  public interface Check {
    boolean run() throws SQLException;
  }

  /**
   * Runs {@code work} on {@code c} in one transaction: its own, committed (or rolled back on a
   * failure) here when {@code c} auto-commits, else the one {@code c} is in.
   */
  public static boolean inOneTransaction(Connection c, Check work) throws SQLException {
    if (!c.getAutoCommit()) {
      return work.run();
    }
    c.setAutoCommit(false);
    boolean result;
    try {
      result = work.run();
      c.commit();
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException notRolledBack) {
        // left without auto-commit, so that nothing commits what is half done: the pool rolls
        // the connection back when it comes home
        e.addSuppressed(notRolledBack);
        throw e;
      }
      c.setAutoCommit(true);
      throw e;
    }
    c.setAutoCommit(true);
    return result;
  }

  /**
   * The failure of a joined claim of {@code key} that met a deadlock or a row committed after its
   * transaction's snapshot: the database aborted the caller's transaction, which must be rolled
   * back and run again.
   */
  public static IdempotencyStoreException abortedTransaction(IdempotencyKey key, SQLException e) {
    return new IdempotencyStoreException(
        "claim of "
            + key
            + " met a deadlock or a row committed after its transaction's snapshot, and the"
            + " database aborted the caller's transaction; roll it back and run it again (SQLState "
            + e.getSQLState()
            + ": "
            + e.getMessage()
            + ")",
        e);
  }
}
