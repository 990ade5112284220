package dev.idem.shop.internal;

import dev.idem.jdbc.TransactionConnection;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The connection of the Spring transaction bound to this thread, so that state transitions are
 * written in the same transaction as the effects they guard. The starter has the same class in an
 * internal package; this is the shop's own.
 */
public final class SpringTransactionConnection implements TransactionConnection {

  private final DataSource dataSource;

  public SpringTransactionConnection(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public Connection current() {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      return null;
    }
    Object resource = TransactionSynchronizationManager.getResource(dataSource);
    if (resource instanceof ConnectionHolder holder && holder.getConnectionHandle() != null) {
      return holder.getConnection();
    }
    return null;
  }
}
