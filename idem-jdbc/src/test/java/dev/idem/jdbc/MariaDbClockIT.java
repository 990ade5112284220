package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The MySQL and MariaDB dialects' clock in a session whose time zone has summer time. The session's
 * clock is stopped just before summer time ends in Berlin (2024-10-27 01:00 UTC, when local 03:00
 * CEST becomes 02:00 CET) and moved past it: leases must end by the time that really passed, not by
 * what the local wall clock shows. Needs the server's time zone tables ({@code mysql_tzinfo_to_sql
 * /usr/share/zoneinfo | mariadb mysql}); without them the test is skipped.
 */
class MariaDbClockIT {

  private static final Instant SUMMER_TIME_ENDS = Instant.parse("2024-10-27T01:00:00Z");
  private static final Duration LEASE = Duration.ofMinutes(10);

  private final String table = "idem_clock_" + UUID.randomUUID().toString().replace("-", "");
  private final IdempotencyKey key = IdempotencyKey.of("clock", UUID.randomUUID().toString());

  static Stream<JdbcDialect> dialects() {
    return Stream.of(JdbcDialect.mariadb(), JdbcDialect.mysql());
  }

  @AfterEach
  void dropTheTable() throws SQLException {
    try (Connection c = Databases.pool(Databases.MARIADB_URL).getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dialects")
  void theClockIsTheSessionsTimestampWhateverTheSessionsOffset(JdbcDialect dialect) {
    Instant now = Instant.parse("2024-06-01T12:00:00.250Z");
    JdbcIdempotencyStore store =
        store(new SessionTimeDataSource(Databases.MARIADB_URL, "-09:30", now), dialect);

    assertThat(now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE))))
        .isInstanceOfSatisfying(
            ClaimResult.Claimed.class,
            c -> assertThat(c.lease().until()).isEqualTo(now.plus(LEASE)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dialects")
  void aLeaseEndsAfterTheTimeThatReallyPassedWhenSummerTimeEnds(JdbcDialect dialect)
      throws SQLException {
    assumeTrue(
        count("SELECT COUNT(*) FROM mysql.time_zone_name WHERE name = 'Europe/Berlin'") == 1,
        "the server has no time zone tables: load them with"
            + " mysql_tzinfo_to_sql /usr/share/zoneinfo | mariadb mysql");
    SessionTimeDataSource berlin =
        new SessionTimeDataSource(
            Databases.MARIADB_URL, "Europe/Berlin", SUMMER_TIME_ENDS.minus(Duration.ofMinutes(5)));
    JdbcIdempotencyStore store = store(berlin, dialect);

    ClaimResult first = now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE)));
    assertThat(first)
        .isInstanceOfSatisfying(
            ClaimResult.Claimed.class,
            c -> assertThat(c.lease().until()).isEqualTo(SUMMER_TIME_ENDS.plusSeconds(5 * 60)));

    // 15 minutes later; Berlin's wall clock went from 02:55 CEST to 02:10 CET.
    berlin.setTime(SUMMER_TIME_ENDS.plus(Duration.ofMinutes(10)));
    assertThat(now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE))))
        .isInstanceOfSatisfying(
            ClaimResult.Claimed.class,
            c -> {
              assertThat(c.lease().fence())
                  .isGreaterThan(((ClaimResult.Claimed) first).lease().fence());
              assertThat(c.lease().until()).isEqualTo(SUMMER_TIME_ENDS.plusSeconds(20 * 60));
            });
  }

  private JdbcIdempotencyStore store(DataSource ds, JdbcDialect dialect) {
    JdbcStoreConfig config = JdbcStoreConfig.custom(dialect).table(table).build();
    JdbcSchema.createIfMissing(ds, config);
    return new JdbcIdempotencyStore(ds, config);
  }

  private static long count(String sql) throws SQLException {
    try (Connection c = Databases.pool(Databases.MARIADB_URL).getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
