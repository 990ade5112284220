package dev.idem.jdbc;

import dev.idem.core.IdempotencyKey;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * On MariaDB (with its own dialect and with MySQL's) a claim that finds a row only reads it: a
 * replay takes a shared lock on the row, as a locking read does, where an upsert took an exclusive
 * one and waited for every transaction that read the row with a shared lock (a caller's own claim
 * in join mode holds it until that caller's transaction ends).
 */
class MariaDbRowLocksIT {

  private final DataSource pool = Databases.pool(Databases.MARIADB_URL);
  private final IdempotencyKey key = IdempotencyKey.of("mariadb-replays:" + UUID.randomUUID(), "k");

  static Stream<JdbcDialect> dialects() {
    return Stream.of(JdbcDialect.mariadb(), JdbcDialect.mysql());
  }

  private static JdbcIdempotencyStore store(JdbcDialect dialect) {
    return Databases.store(Databases.MARIADB_URL, dialect, true);
  }

  @ParameterizedTest
  @MethodSource("dialects")
  void aReplayDoesNotWaitForATransactionThatReadItsRowWithASharedLock(JdbcDialect dialect)
      throws Exception {
    RowLockChecks.replayIsNotHeldOffBy("LOCK IN SHARE MODE", pool, store(dialect), key);
  }

  @ParameterizedTest
  @MethodSource("dialects")
  void aKeyWhoseRecordEndedIsClaimedAfterTheInsertThatFoundIt(JdbcDialect dialect)
      throws Exception {
    RowLockChecks.anEndedRecordIsClaimedAgain(pool, store(dialect), key);
  }
}
