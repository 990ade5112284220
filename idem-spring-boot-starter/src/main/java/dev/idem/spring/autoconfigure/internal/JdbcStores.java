package dev.idem.spring.autoconfigure.internal;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.JdbcResumeLog;
import dev.idem.jdbc.JdbcSchema;
import dev.idem.jdbc.JdbcStoreConfig;
import dev.idem.spring.IdemJdbcProperties;
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

  /** Room for an answer's status and headers beside a body at {@code idem.http.max-body-bytes}. */
  static final int HEADER_ROOM = 64 * 1024;

  /**
   * @param maxBodyBytes the HTTP body limit: the store keeps any answer under it, with its headers
   */
  static IdempotencyStore create(
      ListableBeanFactory beans, IdemJdbcProperties properties, long maxBodyBytes) {
    DataSource dataSource = beans.getBean(DataSource.class);
    JdbcDialect dialect;
    try {
      dialect = JdbcDialect.detect(dataSource);
    } catch (SQLException e) {
      throw new IdempotencyStoreException("could not detect the database of the DataSource", e);
    }
    int maxOutcome = (int) Math.min(Integer.MAX_VALUE - 8, maxBodyBytes + HEADER_ROOM);
    JdbcStoreConfig.Builder config =
        JdbcStoreConfig.custom(dialect)
            .table(properties.getTable())
            .callTimeout(properties.getCallTimeout())
            .maxOutcomeBytes(Math.max(JdbcStoreConfig.DEFAULT_MAX_OUTCOME_BYTES, maxOutcome));
    if (properties.isJoinTransactions()
        && ClassUtils.isPresent(SPRING_TX, JdbcStores.class.getClassLoader())) {
      config.joinTransactions(new SpringTransactionConnection(dataSource));
    }
    JdbcStoreConfig built = config.build();
    if (SchemaCheck.creates(properties.schemaInitialization(), dataSource)) {
      JdbcSchema.createIfMissing(dataSource, built);
    }
    SchemaCheck.requireTable(dataSource, built.table(), dialect);
    return new JdbcIdempotencyStore(dataSource, built);
  }

  /**
   * The resume log in the table {@value JdbcResumeLog#DEFAULT_TABLE} of the application's
   * DataSource, created when the records table would be, and required to exist.
   */
  static ResumeLog resumeLog(ListableBeanFactory beans, IdemJdbcProperties properties) {
    DataSource dataSource = beans.getBean(DataSource.class);
    JdbcDialect dialect;
    try {
      dialect = JdbcDialect.detect(dataSource);
    } catch (SQLException e) {
      throw new IdempotencyStoreException("could not detect the database of the DataSource", e);
    }
    if (SchemaCheck.creates(properties.schemaInitialization(), dataSource)) {
      JdbcSchema.createIfMissing(dataSource, dialect, JdbcResumeLog.DEFAULT_TABLE);
    }
    SchemaCheck.requireTable(dataSource, JdbcResumeLog.DEFAULT_TABLE, dialect);
    return new JdbcResumeLog(dataSource, dialect);
  }
}
