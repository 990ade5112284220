package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.store.ClaimRequest;
import java.time.Duration;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JdbcConfigTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "1table",
        "idem records",
        "idem;DROP TABLE x",
        "a.b.c",
        "idem-records",
        "\"q\""
      })
  void refusesTableNamesThatAreNotPlainIdentifiers(String table) {
    assertThatThrownBy(() -> JdbcStoreConfig.custom(JdbcDialect.h2()).table(table).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("SQL identifier");
  }

  @Test
  void acceptsPlainAndSchemaQualifiedNames() {
    assertThat(JdbcStoreConfig.custom(JdbcDialect.h2()).table("app.idem_records_2").build().table())
        .isEqualTo("app.idem_records_2");
  }

  @Test
  void refusesANegativeOutcomeLimit() {
    assertThatThrownBy(() -> JdbcStoreConfig.custom(JdbcDialect.h2()).maxOutcomeBytes(-1).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void offersReadCommittedClaimsOnlyWhereInnoDbTakesGapLocks() {
    assertThat(JdbcStoreConfig.of(JdbcDialect.mariadb()).readCommittedClaims()).isFalse();
    assertThat(
            JdbcStoreConfig.custom(JdbcDialect.mysql())
                .readCommittedClaims(true)
                .build()
                .readCommittedClaims())
        .isTrue();
    assertThatThrownBy(
            () ->
                JdbcStoreConfig.custom(JdbcDialect.postgresql()).readCommittedClaims(true).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("MySQL and MariaDB");
    assertThatThrownBy(
            () -> JdbcStoreConfig.custom(JdbcDialect.h2()).readCommittedClaims(true).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anUnreachableDatabaseIsATypedStoreFailure() {
    JdbcDataSource unreachable = new JdbcDataSource();
    unreachable.setURL("jdbc:h2:tcp://127.0.0.1:1/nowhere");
    JdbcIdempotencyStore store =
        new JdbcIdempotencyStore(unreachable, JdbcStoreConfig.of(JdbcDialect.h2()));
    assertThatThrownBy(
            () ->
                now(
                    store.claim(
                        ClaimRequest.of(
                            IdempotencyKey.of("s", "k"), Fingerprint.NONE, Duration.ofSeconds(1)))))
        .isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining("claim");
  }
}
