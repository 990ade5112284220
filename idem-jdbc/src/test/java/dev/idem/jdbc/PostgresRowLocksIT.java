package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.lock.LockHandle;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL a statement that only finds its answer only reads the row: a replay, and a lock
 * acquisition refused because the lock is held. An upsert that meets a row it may not change still
 * locks it, which gives its transaction an id and a commit to flush, and makes it wait on whoever
 * holds the row.
 */
class PostgresRowLocksIT {

  private static final Duration LEASE = Duration.ofSeconds(30);

  private final DataSource pool = Databases.pool(Databases.POSTGRES_URL);
  private final JdbcIdempotencyStore store =
      Databases.store(Databases.POSTGRES_URL, JdbcDialect.postgresql(), true);
  private final IdempotencyKey key = IdempotencyKey.of("pg-replays:" + UUID.randomUUID(), "k");
  private final String lockName = "pg-row-locks-" + UUID.randomUUID();

  @Test
  void aReplayLeavesItsRowUnlocked() throws SQLException {
    RowLockChecks.complete(store, key);
    assertThat(xmax()).isZero();

    assertThat(now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE))))
        .isInstanceOf(ClaimResult.Completed.class);

    assertThat(xmax()).as("the replay's transaction id, left on the row it locked").isZero();
  }

  @Test
  void aReplayDoesNotWaitForATransactionHoldingItsRow() throws Exception {
    RowLockChecks.replayIsNotHeldOffBy("FOR UPDATE", pool, store, key);
  }

  @Test
  void aKeyWhoseRecordEndedIsClaimedAfterTheReadThatFoundIt() throws SQLException {
    RowLockChecks.anEndedRecordIsClaimedAgain(pool, store, key);
  }

  @Test
  void aRefusedAcquisitionLeavesTheLocksRowUnlocked() throws Exception {
    JdbcLockProvider locks =
        LockFixtures.provider(Databases.POSTGRES_URL, JdbcDialect.postgresql());
    try (LockHandle held = locks.tryLock(lockName, Duration.ZERO, LEASE).orElseThrow()) {
      assertThat(lockXmax()).isZero();

      assertThat(locks.tryLock(lockName, Duration.ZERO, LEASE)).isEmpty();

      assertThat(lockXmax()).as("the refused acquisition's transaction id").isZero();
      assertThat(held.isHeld()).isTrue();
    }
  }

  @Test
  void aLockIsTakenAgainAfterItsReleaseAndItsLeaseEnd() throws Exception {
    JdbcLockProvider locks =
        LockFixtures.provider(Databases.POSTGRES_URL, JdbcDialect.postgresql());
    LockHandle first = locks.tryLock(lockName, Duration.ZERO, LEASE).orElseThrow();
    first.close();
    LockHandle second = locks.tryLock(lockName, Duration.ZERO, LEASE).orElseThrow();
    assertThat(second.fence()).isGreaterThan(first.fence());
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("UPDATE idem_locks SET lease_until = 0 WHERE name = ?")) {
      ps.setString(1, lockName);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }

    LockHandle third = locks.tryLock(lockName, Duration.ZERO, LEASE).orElseThrow();

    assertThat(third.fence()).isGreaterThan(second.fence());
    assertThat(second.isHeld()).isFalse();
    third.close();
  }

  private long lockXmax() throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT xmax::text::bigint FROM idem_locks WHERE name = ?")) {
      ps.setString(1, lockName);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getLong(1);
      }
    }
  }

  private long xmax() throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT xmax::text::bigint FROM idem_records WHERE id = ?")) {
      ps.setString(1, key.digest());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getLong(1);
      }
    }
  }
}
