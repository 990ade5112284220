package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.lock.LockHandle;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcLockConfig;
import dev.idem.jdbc.JdbcLockProvider;
import dev.idem.jdbc.JdbcSchema;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The PostgreSQL locks of the lock-peers benchmark, each on two nodes with a HikariCP pool of its
 * own per node (HikariCP's default size, {@value #POOL} connections) and on tables of its own that
 * the shutdown drops: Idem's {@link JdbcLockProvider}, Spring Integration's {@link
 * JdbcLockRegistry} and ShedLock's {@link JdbcTemplateLockProvider}.
 */
final class JdbcLockPeers {

  static final String IDEM = "Idem JdbcLockProvider";
  static final String SPRING = "Spring Integration JdbcLockRegistry";
  static final String SHEDLOCK = "ShedLock JdbcTemplateLockProvider";

  /** Connections per node. */
  static final int POOL = 10;

  /**
   * ShedLock has no waiting acquisition (it skips a task whose lock is taken), so a caller that
   * must wait retries; the benchmark retries after this pause.
   */
  static final Duration SHEDLOCK_RETRY = Duration.ofMillis(5);

  private static final String IDEM_TABLE = "bench_peer_idem_locks";
  private static final String SPRING_PREFIX = "BENCH_PEER_";
  private static final String SHEDLOCK_TABLE = "bench_peer_shedlock";

  private JdbcLockPeers() {}

  /** All three, Idem's first. */
  static List<LockPeer> all(String url) throws Exception {
    return Peers.build(
        List.of(() -> idem(url), () -> spring(url), () -> shedlock(url)), LockPeer::shutdown);
  }

  /** {@code tryLock(name, wait, 30 s)}, then {@code close()} of the handle. */
  static LockPeer idem(String url) throws SQLException {
    List<HikariDataSource> pools = pools(url, "idem");
    JdbcLockConfig config =
        JdbcLockConfig.custom(JdbcDialect.postgresql()).table(IDEM_TABLE).build();
    JdbcSchema.createIfMissing(pools.get(0), config);
    List<JdbcLockProvider> providers =
        pools.stream().map(pool -> new JdbcLockProvider(pool, config)).toList();
    return new LockPeer(
        IDEM,
        "PostgreSQL",
        (node, lock, wait) -> {
          Optional<LockHandle> handle = providers.get(node).tryLock(lock, wait, LockPeer.LEASE);
          return handle.<LockPeer.Release>map(h -> h::close).orElse(null);
        },
        () -> dropAndClose(pools, "DROP TABLE IF EXISTS " + IDEM_TABLE));
  }

  /**
   * {@code obtain(name).tryLock(wait, 30 s)} on a {@link JdbcLockRegistry} over a {@link
   * DefaultLockRepository} with its defaults (a serializable transaction per attempt, 100 ms
   * between attempts of a waiter), then {@code unlock()}; the table is the one of the jar's own
   * PostgreSQL schema.
   */
  static LockPeer spring(String url) throws SQLException, IOException {
    List<HikariDataSource> pools = pools(url, "spring");
    BenchJdbc.execute(pools.get(0), BenchJdbc.springIntegrationTable("LOCK", SPRING_PREFIX));
    List<DefaultLockRepository> repositories =
        pools.stream().map(JdbcLockPeers::repository).toList();
    List<JdbcLockRegistry> registries =
        repositories.stream().map(r -> new JdbcLockRegistry(r, LockPeer.LEASE)).toList();
    return new LockPeer(
        SPRING,
        "PostgreSQL",
        (node, lock, wait) -> {
          DistributedLock taken = registries.get(node).obtain(lock);
          return taken.tryLock(wait, LockPeer.LEASE) ? taken::unlock : null;
        },
        () -> {
          repositories.forEach(DefaultLockRepository::close);
          dropAndClose(pools, "DROP TABLE IF EXISTS " + SPRING_PREFIX + "LOCK");
        });
  }

  /**
   * {@code lock(name, lockAtMostFor 30 s, lockAtLeastFor 0)} on a {@link JdbcTemplateLockProvider}
   * that uses the database's time, then {@code unlock()}; a waiter retries after {@link
   * #SHEDLOCK_RETRY} until its wait is over.
   */
  static LockPeer shedlock(String url) throws SQLException {
    List<HikariDataSource> pools = pools(url, "shedlock");
    BenchJdbc.execute(
        pools.get(0),
        "CREATE TABLE IF NOT EXISTS "
            + SHEDLOCK_TABLE
            + " (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMP NOT NULL,"
            + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
    List<JdbcTemplateLockProvider> providers =
        pools.stream()
            .map(
                pool ->
                    new JdbcTemplateLockProvider(
                        JdbcTemplateLockProvider.Configuration.builder()
                            .withJdbcTemplate(new JdbcTemplate(pool))
                            .withTableName(SHEDLOCK_TABLE)
                            .usingDbTime()
                            .build()))
            .toList();
    return new LockPeer(
        SHEDLOCK,
        "PostgreSQL",
        (node, lock, wait) -> {
          long deadline = System.nanoTime() + wait.toNanos();
          while (true) {
            Optional<SimpleLock> taken =
                providers
                    .get(node)
                    .lock(
                        new LockConfiguration(Instant.now(), lock, LockPeer.LEASE, Duration.ZERO));
            if (taken.isPresent()) {
              return taken.get()::unlock;
            }
            if (System.nanoTime() + SHEDLOCK_RETRY.toNanos() > deadline) {
              return null;
            }
            Thread.sleep(SHEDLOCK_RETRY.toMillis());
          }
        },
        () -> dropAndClose(pools, "DROP TABLE IF EXISTS " + SHEDLOCK_TABLE));
  }

  private static DefaultLockRepository repository(HikariDataSource pool) {
    DefaultLockRepository repository = new DefaultLockRepository(pool);
    repository.setPrefix(SPRING_PREFIX);
    repository.setTransactionManager(new DataSourceTransactionManager(pool));
    repository.afterPropertiesSet();
    repository.afterSingletonsInstantiated();
    repository.start();
    return repository;
  }

  private static List<HikariDataSource> pools(String url, String peer) {
    return List.of(
        BenchJdbc.pool(url, "locks-" + peer + "-0", POOL),
        BenchJdbc.pool(url, "locks-" + peer + "-1", POOL));
  }

  private static void dropAndClose(List<HikariDataSource> pools, String drop) throws SQLException {
    try {
      BenchJdbc.execute(pools.get(0), drop);
    } finally {
      pools.forEach(HikariDataSource::close);
    }
  }
}
