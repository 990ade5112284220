package dev.idem.spring.autoconfigure.internal;

import dev.idem.jdbc.TransactionConnection;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The connection of the Spring-managed transaction bound to this thread for the store's DataSource,
 * so that records join {@code @Transactional} work. Reads the bound holder directly rather than
 * through {@code DataSourceUtils.getConnection}, which would count a reference that the store never
 * releases.
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
