package dev.idem.jdbc;

import dev.idem.core.IdempotencyStoreException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Plain-JDBC transactions that a join-mode store takes part in: {@link #inTransaction} opens a
 * transaction on one connection, binds it to the thread for the store (as {@link
 * TransactionConnection}), and commits when the work returns or rolls back when it throws. Business
 * writes, the idempotency record and the stored outcome therefore commit or vanish together.
 *
 * <pre>{@code
 * JdbcTransactions tx = new JdbcTransactions(dataSource);
 * JdbcIdempotencyStore store = new JdbcIdempotencyStore(dataSource,
 *     JdbcStoreConfig.custom(JdbcDialect.postgresql()).joinTransactions(tx).build());
 * String order = tx.inTransaction(c ->
 *     idempotency.call(key, fingerprint).run(ctx -> insertOrder(c, request)));
 * }</pre>
 */
public final class JdbcTransactions implements TransactionConnection {

  /** Work inside a transaction. */
  @FunctionalInterface
  public interface TransactionWork<T extends @Nullable Object, E extends Exception> {
    T run(Connection connection) throws E;
  }

  private final DataSource dataSource;
  private final ThreadLocal<Connection> bound = new ThreadLocal<>();

  public JdbcTransactions(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public @Nullable Connection current() {
    return bound.get();
  }

  /**
   * Runs {@code work} in a new transaction, or in the one already open on this thread.
   *
   * @throws IdempotencyStoreException when the connection cannot be had, committed or rolled back
   * @throws E whatever the work throws (after rollback)
   */
  public <T extends @Nullable Object, E extends Exception> T inTransaction(
      TransactionWork<T, E> work) throws E {
    Connection outer = bound.get();
    if (outer != null) {
      return work.run(outer);
    }
    Connection c = open();
    bound.set(c);
    try {
      T result;
      try {
        result = work.run(c);
      } catch (Exception | Error e) {
        rollback(c);
        throw e;
      }
      commit(c);
      return result;
    } finally {
      bound.remove();
      close(c);
    }
  }

  private static void commit(Connection c) {
    try {
      c.commit();
    } catch (SQLException e) {
      rollback(c);
      throw new IdempotencyStoreException("commit failed: " + e.getMessage(), e);
    }
  }

  private Connection open() {
    try {
      Connection c = dataSource.getConnection();
      c.setAutoCommit(false);
      return c;
    } catch (SQLException e) {
      throw new IdempotencyStoreException("cannot open a transaction: " + e.getMessage(), e);
    }
  }

  private static void rollback(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      // The original failure matters more; the pool discards a broken connection.
    }
  }

  private static void close(Connection c) {
    try {
      c.setAutoCommit(true);
      c.close();
    } catch (SQLException e) {
      // Closing returns it to the pool; a failure here leaves nothing of ours behind.
    }
  }
}
