package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.Outcome;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * On MariaDB (with its own dialect and with MySQL's) a claim that finds a row only reads it: a
 * replay takes a shared lock on the row for the moment of its statement, as any reader does, where
 * an upsert took an exclusive one and waited for every transaction that read the row with a shared
 * lock (a caller's own claim in join mode holds it until that caller's transaction ends).
 */
class MariaDbRowLocksIT {

  private static final Duration LEASE = Duration.ofSeconds(30);

  private final DataSource pool = Databases.pool(Databases.MARIADB_URL);

  static Stream<JdbcDialect> dialects() {
    return Stream.of(JdbcDialect.mariadb(), JdbcDialect.mysql());
  }

  private static IdempotencyKey key() {
    return IdempotencyKey.of("mariadb-replays:" + UUID.randomUUID(), "k");
  }

  @ParameterizedTest
  @MethodSource("dialects")
  void aReplayDoesNotWaitForATransactionThatReadItsRowWithASharedLock(JdbcDialect dialect)
      throws Exception {
    JdbcIdempotencyStore store = Databases.store(Databases.MARIADB_URL, dialect, true);
    IdempotencyKey key = key();
    complete(store, key);
    try (Connection reader = pool.getConnection()) {
      reader.setAutoCommit(false);
      try (PreparedStatement ps =
          reader.prepareStatement("SELECT 1 FROM idem_records WHERE id = ? LOCK IN SHARE MODE")) {
        ps.setString(1, key.digest());
        ps.executeQuery().close();
      }
      try {
        CompletableFuture<ClaimResult> replay =
            CompletableFuture.supplyAsync(
                () -> now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE))));
        assertThat(replay.get(10, TimeUnit.SECONDS)).isInstanceOf(ClaimResult.Completed.class);
      } finally {
        reader.rollback();
      }
    }
  }

  @ParameterizedTest
  @MethodSource("dialects")
  void aKeyWhoseRecordEndedIsClaimedAfterTheInsertThatFoundIt(JdbcDialect dialect)
      throws SQLException {
    JdbcIdempotencyStore store = Databases.store(Databases.MARIADB_URL, dialect, true);
    IdempotencyKey key = key();
    ClaimResult.Claimed first =
        (ClaimResult.Claimed) now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE)));
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("UPDATE idem_records SET expires_at = 0 WHERE id = ?")) {
      ps.setString(1, key.digest());
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }

    ClaimResult again = now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE)));

    assertThat(again).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(((ClaimResult.Claimed) again).lease().fence()).isGreaterThan(first.lease().fence());
  }

  private static void complete(JdbcIdempotencyStore store, IdempotencyKey k) {
    ClaimResult.Claimed claimed =
        (ClaimResult.Claimed) now(store.claim(ClaimRequest.of(k, Fingerprint.NONE, LEASE)));
    assertThat(
            now(
                store.complete(
                    claimed.lease(),
                    Outcome.success("paid".getBytes(StandardCharsets.UTF_8)),
                    Duration.ofHours(1))))
        .isTrue();
  }
}
