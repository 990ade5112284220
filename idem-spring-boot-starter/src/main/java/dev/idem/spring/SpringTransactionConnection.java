package dev.idem.spring;

import dev.idem.jdbc.TransactionConnection;
import dev.idem.spring.aop.internal.OutsideTransaction;
import java.sql.Connection;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A {@link TransactionConnection} for Spring: the connection of the Spring-managed transaction
 * bound to this thread for {@code dataSource}, or null outside one. Give it to a JDBC component's
 * join mode ({@code JdbcStoreConfig.Builder.joinTransactions}, {@code
 * JdbcStateStore.Builder.joinTransactions}) so that its rows are written in the caller's
 * {@code @Transactional} work and commit or roll back with it; the starter's JDBC store uses it the
 * same way. Needs idem-jdbc on the class path.
 *
 * <p>Reads the bound holder directly rather than through {@code DataSourceUtils.getConnection},
 * which would count a reference that the caller never releases. Stateless apart from the
 * DataSource; thread-safe.
 */
public final class SpringTransactionConnection implements TransactionConnection {

  private final DataSource dataSource;

  /**
   * @param dataSource the DataSource whose Spring transaction to join; the same instance the
   *     transaction manager uses
   * @throws NullPointerException when {@code dataSource} is null
   */
  public SpringTransactionConnection(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /**
   * The bound transaction's connection, or null when no Spring transaction is active, or while Idem
   * stores the outcome of an {@code @Idempotent} method that declares no transaction of its own
   * outside its caller's.
   */
  @Override
  public @Nullable Connection current() {
    if (!TransactionSynchronizationManager.isActualTransactionActive()
        || OutsideTransaction.active()) {
      return null;
    }
    Object resource = TransactionSynchronizationManager.getResource(dataSource);
    if (resource instanceof ConnectionHolder holder && holder.getConnectionHandle() != null) {
      return holder.getConnection();
    }
    return null;
  }
}
