package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.lock.LockHandle;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import liquibase.Scope;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Idem's one migration file per database, run as an application runs its schema: by Flyway beside
 * the application's own versioned migrations (a V1 of its own included), and by Liquibase from the
 * application's changelog; each on a new, empty database, after which the store and the locks work.
 */
abstract class MigrationTests {

  private static final String APP_FIRST = "classpath:app/flyway/first";
  private static final String APP_SECOND = "classpath:app/flyway/second";

  private ScratchDatabase db;

  protected abstract String url();

  protected abstract JdbcDialect dialect();

  @BeforeEach
  void newDatabase() {
    db = ScratchDatabase.beside(url(), dialect());
  }

  @AfterEach
  void dropIt() {
    db.close();
  }

  @Test
  void flywayMakesIdemsTablesBesideTheApplicationsOwnVersionOne() throws Exception {
    MigrateResult first = flyway(APP_FIRST, idem()).migrate();
    MigrateResult again = flyway(APP_FIRST, idem()).migrate();

    assertThat(first.migrations).extracting(m -> m.version).containsExactly("1");
    assertThat(again.migrationsExecuted).isZero();
    assertThat(tables()).contains("shop_orders", "idem_records", "idem_locks");
    assertThat(indexes("idem_records")).contains("idem_records_expires_at", "idem_records_scope");
    assertTheStoreAndTheLocksWork();
  }

  @Test
  void idemAddedToADatabasePastItsFirstVersionsNeedsNoOutOfOrderRun() throws Exception {
    flyway(APP_FIRST, APP_SECOND).migrate();

    MigrateResult added = flyway(APP_FIRST, APP_SECOND, idem()).migrate();

    assertThat(added.migrationsExecuted).isZero();
    assertThat(tables()).contains("shop_orders", "shop_payments", "idem_records", "idem_locks");
    assertThat(flyway(APP_FIRST, APP_SECOND, idem()).validateWithResult().validationSuccessful)
        .isTrue();
    assertTheStoreAndTheLocksWork();
  }

  @Test
  void liquibaseRunsIdemsChangelogFromTheApplications() throws Exception {
    liquibaseUpdate();
    liquibaseUpdate();

    assertThat(tables()).contains("shop_orders", "idem_records", "idem_locks");
    assertThat(indexes("idem_records")).contains("idem_records_expires_at", "idem_records_scope");
    assertTheStoreAndTheLocksWork();
  }

  @Test
  void jdbcSchemaMakesTheSameTablesUnderOtherNames() throws Exception {
    JdbcStoreConfig records = JdbcStoreConfig.custom(dialect()).table("my_records").build();
    JdbcLockConfig locks = JdbcLockConfig.custom(dialect()).table("my_locks").build();
    JdbcSchema.createIfMissing(db.dataSource(), records);
    JdbcSchema.createIfMissing(db.dataSource(), records);
    JdbcSchema.createIfMissing(db.dataSource(), locks);

    assertThat(tables()).contains("my_records", "my_locks").doesNotContain("idem_records");
    assertThat(indexes("my_records")).contains("my_records_expires_at", "my_records_scope");
    assertThat(indexes("my_locks")).contains("my_locks_expires_at");
  }

  private Flyway flyway(String... locations) {
    return Flyway.configure().dataSource(db.dataSource()).locations(locations).load();
  }

  private String idem() {
    return "classpath:" + dialect().migrations();
  }

  private void liquibaseUpdate() throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      Database database =
          DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
      Scope.child(
          Scope.Attr.resourceAccessor,
          new ClassLoaderResourceAccessor(getClass().getClassLoader()),
          () ->
              new CommandScope(UpdateCommandStep.COMMAND_NAME)
                  .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                  .addArgumentValue(
                      UpdateCommandStep.CHANGELOG_FILE_ARG, "app/liquibase/changelog.xml")
                  .execute());
    }
  }

  private void assertTheStoreAndTheLocksWork() throws InterruptedException {
    JdbcIdempotencyStore store =
        new JdbcIdempotencyStore(db.dataSource(), JdbcStoreConfig.of(dialect()));
    ClaimResult claimed =
        now(
            store.claim(
                ClaimRequest.of(
                    IdempotencyKey.of("migrated", "k1"), Fingerprint.NONE, Duration.ofMinutes(1))));
    assertThat(claimed).isInstanceOf(ClaimResult.Claimed.class);
    JdbcLockProvider locks = new JdbcLockProvider(db.dataSource(), JdbcLockConfig.of(dialect()));
    Optional<LockHandle> lock = locks.tryLock("migrated", Duration.ZERO, Duration.ofMinutes(1));
    assertThat(lock).isPresent();
    lock.get().close();
  }

  private List<String> tables() throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        ResultSet rs =
            c.getMetaData().getTables(c.getCatalog(), null, "%", new String[] {"TABLE"})) {
      List<String> names = new ArrayList<>();
      while (rs.next()) {
        names.add(rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT));
      }
      return names;
    }
  }

  private List<String> indexes(String table) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection()) {
      DatabaseMetaData meta = c.getMetaData();
      for (String name : new String[] {table, table.toUpperCase(Locale.ROOT)}) {
        try (ResultSet rs = meta.getIndexInfo(c.getCatalog(), null, name, false, false)) {
          while (rs.next()) {
            String index = rs.getString("INDEX_NAME");
            if (index != null) {
              names.add(index.toLowerCase(Locale.ROOT));
            }
          }
        }
      }
    }
    return names;
  }
}
