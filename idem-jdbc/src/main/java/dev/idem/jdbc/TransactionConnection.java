package dev.idem.jdbc;

import java.sql.Connection;
import org.jspecify.annotations.Nullable;

/**
 * Tells the JDBC store which connection carries the transaction running on the current thread, so
 * that records are written in it (join mode). {@link JdbcTransactions} is the plain-JDBC
 * implementation; the Spring starter supplies one backed by Spring's transaction manager.
 */
@FunctionalInterface
public interface TransactionConnection {

  /**
   * The connection of the transaction active on this thread, or null when there is none (the store
   * then works on its own pooled connection and commits at once). The store neither commits nor
   * closes a connection returned here.
   */
  @Nullable Connection current();
}
