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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * What {@code PostgresRowLocksIT} and {@code MariaDbRowLocksIT} both check: a replay answers while
 * another transaction holds its row, and a key whose record ended is claimed again after the first
 * statement found its row.
 */
final class RowLockChecks {

  static final Duration LEASE = Duration.ofSeconds(30);

  private RowLockChecks() {}

  /** Claims and completes {@code key}. */
  static void complete(JdbcIdempotencyStore store, IdempotencyKey key) {
    ClaimResult.Claimed claimed =
        (ClaimResult.Claimed) now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE)));
    assertThat(
            now(
                store.complete(
                    claimed.lease(),
                    Outcome.success("paid".getBytes(StandardCharsets.UTF_8)),
                    Duration.ofHours(1))))
        .isTrue();
  }

  /**
   * A replay of completed {@code key} answers within 10 s while another transaction holds its row
   * by {@code SELECT ... <lockingClause>}.
   */
  static void replayIsNotHeldOffBy(
      String lockingClause, DataSource pool, JdbcIdempotencyStore store, IdempotencyKey key)
      throws Exception {
    complete(store, key);
    try (Connection holder = pool.getConnection()) {
      holder.setAutoCommit(false);
      try (PreparedStatement ps =
          holder.prepareStatement("SELECT 1 FROM idem_records WHERE id = ? " + lockingClause)) {
        ps.setString(1, key.digest());
        ps.executeQuery().close();
      }
      try {
        CompletableFuture<ClaimResult> replay =
            CompletableFuture.supplyAsync(
                () -> now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE))));
        assertThat(replay.get(10, TimeUnit.SECONDS)).isInstanceOf(ClaimResult.Completed.class);
      } finally {
        holder.rollback();
      }
    }
  }

  /** A key whose record ended by hand is claimed again, with a greater fence. */
  static void anEndedRecordIsClaimedAgain(
      DataSource pool, JdbcIdempotencyStore store, IdempotencyKey key) throws SQLException {
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
}
