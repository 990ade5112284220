package dev.idem.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.IdempotencyStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The databases the tests run on, reached through environment variables with loopback defaults
 * ({@code scripts/services} starts them). One pool per database for the whole test JVM.
 */
final class Databases {

  static final String POSTGRES_URL =
      env("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
  static final String MARIADB_URL =
      env("IDEM_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root");
  static final String H2_URL = "jdbc:h2:mem:idem;DB_CLOSE_DELAY=-1";

  private static final Map<String, HikariDataSource> POOLS = new ConcurrentHashMap<>();

  private Databases() {}

  static DataSource pool(String url) {
    return POOLS.computeIfAbsent(
        url,
        u -> {
          HikariConfig config = new HikariConfig();
          config.setJdbcUrl(u);
          config.setMaximumPoolSize(16);
          config.setPoolName("idem-test-" + Math.abs(u.hashCode()));
          HikariDataSource ds = new HikariDataSource(config);
          Runtime.getRuntime().addShutdownHook(new Thread(ds::close));
          return ds;
        });
  }

  /** A store on {@code url}, with its table created if missing. */
  static JdbcIdempotencyStore store(String url, JdbcDialect dialect, boolean shared) {
    return store(url, dialect, shared, false);
  }

  /** A store on {@code url}, claims under READ COMMITTED if asked, its table created if missing. */
  static JdbcIdempotencyStore store(
      String url, JdbcDialect dialect, boolean shared, boolean readCommittedClaims) {
    DataSource ds = pool(url);
    JdbcStoreConfig config =
        JdbcStoreConfig.custom(dialect)
            .sharedBetweenProcesses(shared)
            .readCommittedClaims(readCommittedClaims)
            .build();
    JdbcSchema.createIfMissing(ds, config);
    return new JdbcIdempotencyStore(ds, config);
  }

  /** A resume log on {@code url}, with its table created if missing. */
  static JdbcResumeLog resumeLog(String url, JdbcDialect dialect) {
    DataSource ds = pool(url);
    JdbcSchema.createIfMissing(ds, dialect, JdbcResumeLog.DEFAULT_TABLE);
    return new JdbcResumeLog(ds, dialect);
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }

  /** Builds a PostgreSQL store in the child JVM of a crash test. */
  public static final class PostgresStore implements Supplier<IdempotencyStore> {
    @Override
    public IdempotencyStore get() {
      return store(POSTGRES_URL, JdbcDialect.postgresql(), true);
    }
  }

  /** Builds a MariaDB store in the child JVM of a crash test. */
  public static final class MariaDbStore implements Supplier<IdempotencyStore> {
    @Override
    public IdempotencyStore get() {
      return store(MARIADB_URL, JdbcDialect.mariadb(), true);
    }
  }

  /** Builds a PostgreSQL resume log in the child JVM of a crash test. */
  public static final class PostgresResumeLog implements Supplier<ResumeLog> {
    @Override
    public ResumeLog get() {
      return resumeLog(POSTGRES_URL, JdbcDialect.postgresql());
    }
  }
}
