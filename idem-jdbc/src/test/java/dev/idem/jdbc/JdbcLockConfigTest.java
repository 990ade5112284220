package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.idem.testsupport.StateStoreContract.PaymentStatus;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Names spliced into SQL are checked before any statement is built. */
class JdbcLockConfigTest {

  private final DataSource h2 = Databases.pool(Databases.H2_URL);

  @Test
  void acceptsPlainAndSchemaQualifiedTableNames() {
    assertThat(JdbcLockConfig.of(JdbcDialect.h2()).table()).isEqualTo("idem_locks");
    assertThat(JdbcLockConfig.custom(JdbcDialect.h2()).table("ops.locks").build().table())
        .isEqualTo("ops.locks");
  }

  @Test
  void refusesLockTablesThatAreNotIdentifiersAndRetentionsThatAreNotPositive() {
    for (String table : new String[] {"locks; DROP TABLE x", "a.b.c", "1locks", "", null}) {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> JdbcLockConfig.custom(JdbcDialect.h2()).table(table).build());
    }
    assertThatIllegalArgumentException()
        .isThrownBy(
            () -> JdbcLockConfig.custom(JdbcDialect.h2()).fenceRetention(Duration.ZERO).build())
        .withMessageContaining("fenceRetention");
  }

  @Test
  void refusesStateTablesAndColumnsThatAreNotIdentifiers() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> JdbcStateStore.builder(h2, PaymentStatus.class).build());
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                JdbcStateStore.builder(h2, PaymentStatus.class)
                    .table("payments")
                    .statusColumn("status = status OR 1=1 --")
                    .build())
        .withMessageContaining("column");
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                JdbcStateStore.builder(h2, PaymentStatus.class)
                    .table("payments")
                    .idColumn("s.id")
                    .build());
  }
}
