package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.testsupport.net.FaultProxy;
import dev.idem.testsupport.net.SilentPartitionCheck;
import dev.idem.testsupport.net.StalledCall;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL store reached through a {@link FaultProxy}: a cut or a silent partition makes a
 * claim fail with {@link IdempotencyStoreException}, leaves no half-written record, and the store
 * works again once the network is back.
 */
class PostgresFaultProxyIT {

  private static final String TABLE = "idem_fault_proxy_it";
  private static final Duration LEASE = Duration.ofMillis(500);
  private static final Duration WAIT = Duration.ofSeconds(30);
  // the partition test of a claim needs the socket timeout to end its wait
  private static final int SOCKET_TIMEOUT_SECONDS = 2;
  private static final int HANGING_SOCKET_TIMEOUT = 30;
  private static final byte[] ANSWER = {1, 2, 3};

  private FaultProxy proxy;
  private HikariDataSource pool;
  private JdbcIdempotencyStore store;

  @BeforeEach
  void connectThroughTheProxy() {
    URI server = URI.create(Databases.POSTGRES_URL.substring("jdbc:".length()));
    proxy = FaultProxy.start(server.getHost(), server.getPort());
    pool = pool("idem-fault-proxy-it", SOCKET_TIMEOUT_SECONDS, 1);
    JdbcStoreConfig storeConfig =
        JdbcStoreConfig.custom(JdbcDialect.postgresql()).table(TABLE).build();
    JdbcSchema.createIfMissing(pool, storeConfig);
    store = new JdbcIdempotencyStore(pool, storeConfig);
  }

  @AfterEach
  void dropEverything() throws SQLException {
    pool.close();
    proxy.close();
    try (Connection c = DriverManager.getConnection(Databases.POSTGRES_URL);
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + TABLE);
    }
  }

  @Test
  void aCutDuringAClaimFailsTypedAndLeavesTheClaimWholeOrAbsent() throws Exception {
    ClaimRequest request = request();
    assertThat(store.find(request.key())).isEmpty(); // a pooled connection, open before the fault
    proxy.latency(Duration.ofSeconds(1));
    long before = proxy.bytesForwarded();

    CompletableFuture<ClaimResult> claim =
        CompletableFuture.supplyAsync(() -> now(store.claim(request)));
    // the claim has reached the server; its answer is held back by the latency when we cut
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> proxy.bytesForwarded() > before);
    assertThat(proxy.cut()).isPositive();

    assertThatThrownBy(claim::get)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(IdempotencyStoreException.class)
        .hasCauseInstanceOf(SQLException.class);

    proxy.reset();
    Optional<IdempotencyRecord> left =
        await().atMost(WAIT).ignoreExceptions().until(() -> store.find(request.key()), r -> true);
    left.ifPresent(
        record -> {
          assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
          assertThat(record.fence()).isPositive();
          assertThat(record.fingerprint()).isEqualTo(request.fingerprint());
          assertThat(record.leaseUntil()).isNotNull();
        });
    claimCompleteAndReplay(request);
  }

  @Test
  void aSilentPartitionFailsTheClaimTypedAfterTheSocketTimeoutAndTheStoreRecovers() {
    ClaimRequest request = request();
    assertThat(store.find(request.key())).isEmpty();
    proxy.blackhole(true);

    assertThatThrownBy(() -> now(store.claim(request)))
        .isInstanceOf(IdempotencyStoreException.class)
        .hasCauseInstanceOf(SQLException.class);
    assertThat(proxy.bytesDropped()).isPositive();

    proxy.reset();
    claimCompleteAndReplay(request);
  }

  @Test
  void withoutASocketTimeoutEveryCallInASilentPartitionStillEndsTypedAndTheStoreRecovers()
      throws Exception {
    // socketTimeout=0, the driver's default: a read waits forever unless the store bounds it
    try (HikariDataSource unbounded = pool("idem-fault-proxy-it-unbounded", 0, 2)) {
      JdbcIdempotencyStore bounded =
          new JdbcIdempotencyStore(
              unbounded,
              JdbcStoreConfig.custom(JdbcDialect.postgresql())
                  .table(TABLE)
                  .callTimeout(Duration.ofSeconds(1))
                  .build());
      ClaimRequest request = request();
      ClaimResult.Claimed claimed = (ClaimResult.Claimed) now(bounded.claim(request));
      ClaimRequest other = request();
      assertThat(bounded.find(other.key())).isEmpty(); // both connections open before the fault
      proxy.blackhole(true);

      // a guard against a hang, not a timing: the bounds are half the lease and one second
      CompletableFuture<Throwable> claim = StalledCall.failureOf(() -> now(bounded.claim(other)));
      CompletableFuture<Throwable> complete =
          StalledCall.failureOf(
              () -> now(bounded.complete(claimed.lease(), Outcome.success(ANSWER), WAIT)));
      assertThat(claim.get(30, java.util.concurrent.TimeUnit.SECONDS))
          .isInstanceOf(IdempotencyStoreException.class);
      assertThat(complete.get(30, java.util.concurrent.TimeUnit.SECONDS))
          .isInstanceOf(IdempotencyStoreException.class);

      proxy.reset();
      ClaimResult again =
          await()
              .atMost(WAIT)
              .ignoreExceptions()
              .until(() -> now(bounded.claim(other)), r -> r instanceof ClaimResult.Claimed);
      assertThat(again).isInstanceOf(ClaimResult.Claimed.class);
    }
  }

  @Test
  void workWhoseRenewalsHangInASilentPartitionIsToldItsLeaseIsLostWithinAboutALease()
      throws Exception {
    // Renewals here may hang for far longer than the lease: the lost signal must not wait for them
    try (HikariDataSource slowPool = pool("idem-fault-proxy-it-slow", HANGING_SOCKET_TIMEOUT, 2)) {
      SilentPartitionCheck.workIsToldItsLeaseIsLostBeforeAHangingRenewalGivesUp(
          new JdbcIdempotencyStore(
              slowPool, JdbcStoreConfig.custom(JdbcDialect.postgresql()).table(TABLE).build()),
          proxy,
          "fault-proxy");
    }
  }

  /** Claims (after any lease left by the fault has ended), completes, and gets the replay. */
  private void claimCompleteAndReplay(ClaimRequest request) {
    ClaimResult result =
        await()
            .atMost(WAIT)
            .ignoreExceptions()
            .until(() -> now(store.claim(request)), r -> r instanceof ClaimResult.Claimed);
    ClaimResult.Claimed claimed = (ClaimResult.Claimed) result;
    assertThat(now(store.complete(claimed.lease(), Outcome.success(ANSWER), Duration.ofMinutes(5))))
        .isTrue();
    assertThat(now(store.claim(request)))
        .isInstanceOfSatisfying(
            ClaimResult.Completed.class,
            c -> assertThat(c.record().outcome().payload()).isEqualTo(ANSWER));
  }

  /** A pool on the proxy whose socket timeout ends a query or login that gets no answer. */
  private HikariDataSource pool(String name, int socketTimeoutSeconds, int size) {
    URI server = URI.create(Databases.POSTGRES_URL.substring("jdbc:".length()));
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(
        "jdbc:postgresql://"
            + proxy.host()
            + ":"
            + proxy.port()
            + server.getRawPath()
            + "?"
            + server.getRawQuery()
            + "&socketTimeout="
            + socketTimeoutSeconds
            + "&connectTimeout=2");
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(3_000);
    config.setValidationTimeout(1_000);
    config.setPoolName(name);
    return new HikariDataSource(config);
  }

  private static ClaimRequest request() {
    return ClaimRequest.of(
        IdempotencyKey.of("fault-proxy", UUID.randomUUID().toString()),
        Fingerprint.of("POST /pay", ANSWER),
        LEASE);
  }
}
