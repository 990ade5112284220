package dev.idem.spring.autoconfigure.internal;

import dev.idem.core.IdempotencyStore;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.JdbcSchema;
import dev.idem.jdbc.JdbcStoreConfig;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.SpringTransactionConnection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/** The JDBC store on the application's DataSource; loaded only when idem-jdbc is present. */
final class JdbcStores {

  private static final String SPRING_TX =
      "org.springframework.transaction.support.TransactionSynchronizationManager";

  private JdbcStores() {}

  static boolean dataSourceExists(ListableBeanFactory beans) {
    return beans.getBeanNamesForType(DataSource.class, false, false).length > 0;
  }

  static IdempotencyStore create(ListableBeanFactory beans, IdemProperties.Jdbc properties) {
    DataSource dataSource = beans.getBean(DataSource.class);
    JdbcDialect dialect;
    try {
      dialect = JdbcDialect.detect(dataSource);
    } catch (SQLException e) {
      throw new IdempotencyStoreException("could not detect the database of the DataSource", e);
    }
    JdbcStoreConfig.Builder config = JdbcStoreConfig.custom(dialect).table(properties.getTable());
    if (properties.isJoinTransactions()
        && ClassUtils.isPresent(SPRING_TX, JdbcStores.class.getClassLoader())) {
      config.joinTransactions(new SpringTransactionConnection(dataSource));
    }
    JdbcStoreConfig built = config.build();
    if (properties.isCreateSchema()) {
      JdbcSchema.createIfMissing(dataSource, built);
    }
    return new JdbcIdempotencyStore(dataSource, built);
  }
}
