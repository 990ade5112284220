package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The jar holds one migration file per database and nothing where Flyway looks by default; the
 * Liquibase changelog runs those same files. How the files run is {@link MigrationTests}'.
 */
class MigrationFilesTest {

  static Stream<JdbcDialect> dialects() {
    return Stream.of(
        JdbcDialect.postgresql(), JdbcDialect.mysql(), JdbcDialect.mariadb(), JdbcDialect.h2());
  }

  @ParameterizedTest
  @MethodSource("dialects")
  void eachDatabaseHasOneMigrationThatTheLiquibaseChangelogRunsToo(JdbcDialect dialect)
      throws Exception {
    URL folder = getClass().getClassLoader().getResource(dialect.migrations());
    assertThat(folder).as(dialect.migrations()).isNotNull();
    assertThat(new File(folder.toURI()).list()).containsExactly(JdbcSchema.MIGRATION);
    assertThat(read("dev/idem/jdbc/liquibase/changelog.xml"))
        .contains("path=\"" + dialect.migrations() + "/" + JdbcSchema.MIGRATION + "\"");
  }

  @Test
  void nothingLiesWhereFlywayLooksByDefault() throws IOException {
    // Flyway scans classpath:db/migration and everything under it unless told otherwise: three
    // databases' migrations there stop every application that keeps that default.
    List<URL> found = Collections.list(getClass().getClassLoader().getResources("db/migration"));
    assertThat(found).noneMatch(url -> url.toString().contains("idem-jdbc"));
  }

  @Test
  void theSchemaAddsTheScopeIndexToATableMadeBeforeIt() throws Exception {
    org.h2.jdbcx.JdbcDataSource db = new org.h2.jdbcx.JdbcDataSource();
    db.setURL("jdbc:h2:mem:schema-upgrade;DB_CLOSE_DELAY=-1");
    String migration = read(JdbcDialect.h2().migrations() + "/" + JdbcSchema.MIGRATION);
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      String statements =
          migration.lines().filter(l -> !l.startsWith("--")).reduce("", (a, b) -> a + b + "\n");
      for (String sql : statements.split(";")) {
        if (sql.contains("CREATE TABLE IF NOT EXISTS idem_records")) {
          s.execute(sql);
        }
      }
      assertThat(indexExists(c, "IDEM_RECORDS_SCOPE")).isFalse();
      JdbcSchema.createIfMissing(db, JdbcStoreConfig.of(JdbcDialect.h2()));
      assertThat(indexExists(c, "IDEM_RECORDS_SCOPE")).isTrue();
    }
  }

  private static boolean indexExists(Connection c, String index) throws SQLException {
    try (ResultSet rs = c.getMetaData().getIndexInfo(null, null, "IDEM_RECORDS", false, false)) {
      while (rs.next()) {
        if (index.equalsIgnoreCase(rs.getString("INDEX_NAME"))) {
          return true;
        }
      }
      return false;
    }
  }

  private static String read(String resource) throws IOException {
    try (InputStream in = MigrationFilesTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
