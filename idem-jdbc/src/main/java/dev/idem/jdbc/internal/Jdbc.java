package dev.idem.jdbc.internal;

import dev.idem.core.IdempotencyStoreException;
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

  public Jdbc(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Runs {@code work}; {@code what} names the operation in the error message. */
  public <T> T run(String what, Work<T> work) {
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
      throw new IdempotencyStoreException(
          "idempotency store failed at " + what + ": " + e.getMessage(), e);
    }
  }
}
