package dev.idem.jdbc.internal;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.jdbc.TransactionConnection;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs one unit of store work on a pooled connection and turns every {@link SQLException} into an
 * {@link IdempotencyStoreException}. A connection that comes out of the pool without auto-commit is
 * committed after the work (or rolled back after a failure), so a plain-mode call never leaves half
 * its writes behind.
 */
public final class Jdbc {

  /** Work on a connection. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private final DataSource dataSource;
  private final TransactionConnection transactions;

  /**
   * @param transactions where the thread's transaction is found (join mode), or null for none
   */
  public Jdbc(DataSource dataSource, TransactionConnection transactions) {
    this.dataSource = dataSource;
    this.transactions = transactions;
  }

  /** True when a transaction is active on this thread and the store writes in it. */
  public boolean joined() {
    return transactions != null && transactions.current() != null;
  }

  /**
   * Runs {@code work} on the thread's transaction connection when there is one (neither committed
   * nor closed here: the transaction's owner decides), else on a pooled connection committed at
   * once. {@code what} names the operation in the error message.
   */
  public <T> T run(String what, Work<T> work) {
    Connection joined = transactions == null ? null : transactions.current();
    if (joined != null) {
      try {
        return work.run(joined);
      } catch (SQLException e) {
        throw failure(what, e);
      }
    }
    try (Connection c = dataSource.getConnection()) {
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
      }
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  private static IdempotencyStoreException failure(String what, SQLException e) {
    return new IdempotencyStoreException(
        "idempotency store failed at " + what + ": " + e.getMessage(), e);
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
