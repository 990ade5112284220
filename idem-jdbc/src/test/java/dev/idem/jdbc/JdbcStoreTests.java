package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.Outcome;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** What the JDBC store does beyond the shared contract, on each database. */
abstract class JdbcStoreTests {

  protected abstract String url();

  protected abstract JdbcDialect dialect();

  private final String scope = "jdbc:" + UUID.randomUUID();

  private JdbcIdempotencyStore store(int maxOutcomeBytes) {
    DataSource ds = Databases.pool(url());
    JdbcStoreConfig config =
        JdbcStoreConfig.custom(dialect()).maxOutcomeBytes(maxOutcomeBytes).build();
    JdbcSchema.createIfMissing(ds, config);
    return new JdbcIdempotencyStore(ds, config);
  }

  @Test
  void refusesAnOutcomeOverTheLimitBeforeWritingIt() {
    JdbcIdempotencyStore store = store(16);
    IdempotencyKey key = IdempotencyKey.of(scope, "big");
    ClaimResult.Claimed claimed =
        (ClaimResult.Claimed)
            now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30))));
    assertThatThrownBy(
            () ->
                now(
                    store.complete(
                        claimed.lease(), Outcome.success(new byte[17]), Duration.ofHours(1))))
        .isInstanceOfSatisfying(
            OutcomeTooLargeException.class,
            e -> {
              assertThat(e.size()).isEqualTo(17);
              assertThat(e.limit()).isEqualTo(16);
            });
    assertThat(store.find(key).orElseThrow().outcome()).isNull();
    assertThat(
            now(
                store.complete(
                    claimed.lease(), Outcome.success(new byte[16]), Duration.ofHours(1))))
        .isTrue();
  }

  @Test
  void theEngineKeepsTheKeyOfAnOutcomeOverTheLimitAndRefusesToRunItAgain() {
    JdbcIdempotencyStore store = store(8);
    try (Idempotency engine = Idempotency.builder(store).build()) {
      IdempotencyKey key = IdempotencyKey.of(scope, "too-big");
      assertThat(engine.call(key, Fingerprint.NONE).run(ctx -> "a long answer"))
          .isEqualTo("a long answer");
      assertThat(store.find(key).orElseThrow().outcome().kind()).isEqualTo(Outcome.Kind.UNSTORED);
      assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).run(ctx -> "short"))
          .isInstanceOf(OutcomeNotReplayableException.class)
          .hasMessageContaining("limit of 8 bytes");
    }
  }

  @Test
  void nodesThatStartAtOnceOnAnEmptyDatabaseAllCreateOrFindTheTable() throws Exception {
    DataSource ds = Databases.pool(url());
    String table = "idem_race_" + Long.toHexString(System.nanoTime());
    JdbcStoreConfig config = JdbcStoreConfig.custom(dialect()).table(table).build();
    ExecutorService nodes = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> starting = new ArrayList<>();
      for (int n = 0; n < 8; n++) {
        starting.add(
            nodes.submit(
                () -> {
                  go.await();
                  JdbcSchema.createIfMissing(ds, config);
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : starting) {
        f.get(60, TimeUnit.SECONDS);
      }
      JdbcIdempotencyStore store = new JdbcIdempotencyStore(ds, config);
      IdempotencyKey key = IdempotencyKey.of(scope, "after-the-race");
      assertThat(now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30)))))
          .isInstanceOf(ClaimResult.Claimed.class);
    } finally {
      nodes.shutdownNow();
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
    }
  }

  @Test
  void purgingFromSeveralNodesAtOnceDeletesEachExpiredRecordOnce() throws Exception {
    // a table of its own: other suites may leave expired records in the shared one meanwhile
    DataSource ds = Databases.pool(url());
    JdbcStoreConfig config = JdbcStoreConfig.custom(dialect()).table("idem_purge_race").build();
    JdbcSchema.createIfMissing(ds, config);
    JdbcIdempotencyStore store = new JdbcIdempotencyStore(ds, config);
    List<IdempotencyKey> keys = new ArrayList<>();
    java.util.Map<IdempotencyKey, Long> fences = new java.util.HashMap<>();
    for (int i = 0; i < 120; i++) {
      IdempotencyKey key = IdempotencyKey.of(scope, "purge-" + i);
      ClaimResult.Claimed claimed =
          (ClaimResult.Claimed)
              now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30))));
      now(store.complete(claimed.lease(), Outcome.success(new byte[1]), Duration.ofMillis(1)));
      keys.add(key);
      fences.put(key, claimed.lease().fence());
    }
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> store.find(keys.get(119)).isEmpty());
    ExecutorService nodes = Executors.newFixedThreadPool(4);
    AtomicInteger purged = new AtomicInteger();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int n = 0; n < 4; n++) {
        running.add(
            nodes.submit(
                () -> {
                  for (int batch = store.purgeExpired(25);
                      batch > 0;
                      batch = store.purgeExpired(25)) {
                    purged.addAndGet(batch);
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      nodes.shutdownNow();
    }
    assertThat(purged.get()).isGreaterThanOrEqualTo(keys.size());
    assertThat(store.purgeExpired(1000)).isZero();
    for (IdempotencyKey key : keys) {
      assertThat(now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30)))))
          .isInstanceOfSatisfying(
              ClaimResult.Claimed.class,
              c -> assertThat(c.lease().fence()).isGreaterThan(fences.get(key)));
    }
  }
}
