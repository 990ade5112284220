package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Flyway migrations in the jar hold exactly the schema files' statements, and they run. */
class MigrationFilesTest {

  // Where the part of the schema that came after the first migration begins.
  private static final String SCOPE_INDEX = "-- Counts one scope";

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mysql", "h2"})
  void migrationsEqualTheSchemaFilesTheyAreMadeOf(String db) throws IOException {
    String schema = read("dev/idem/jdbc/schema-" + db + ".sql");
    int scopeIndex = schema.indexOf(SCOPE_INDEX);
    assertThat(scopeIndex).as("the scope index in schema-" + db).isPositive();
    assertThat(body("V1__idem_tables.sql", db))
        .isEqualTo(
            schema.substring(0, scopeIndex) + "\n" + read("dev/idem/jdbc/locks-" + db + ".sql"));
    assertThat(body("V1_1__idem_records_scope_index.sql", db))
        .isEqualTo(schema.substring(scopeIndex));
  }

  private static String body(String migration, String db) throws IOException {
    String text = read("dev/idem/jdbc/flyway/" + db + "/" + migration);
    return text.substring(text.indexOf("\n\n") + 2);
  }

  @Test
  void nothingLiesWhereFlywayLooksByDefault() throws IOException {
    // Flyway scans classpath:db/migration and everything under it unless told otherwise: three
    // databases' V1 there stop every application that keeps that default.
    java.util.List<java.net.URL> found =
        java.util.Collections.list(
            MigrationFilesTest.class.getClassLoader().getResources("db/migration"));
    assertThat(found).noneMatch(url -> url.toString().contains("idem-jdbc"));
    assertThat(MigrationFilesTest.class.getClassLoader().getResource("db/migration/idem")).isNull();
  }

  @Test
  void theH2MigrationCreatesBothTables() throws Exception {
    String script = read("dev/idem/jdbc/flyway/h2/V1__idem_tables.sql");
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:migration-test")) {
      runScript(c, script);
      assertThat(tableExists(c, "IDEM_RECORDS")).isTrue();
      assertThat(tableExists(c, "IDEM_LOCKS")).isTrue();
    }
  }

  @Test
  void theSchemaAddsTheScopeIndexToATableMadeBeforeIt() throws Exception {
    org.h2.jdbcx.JdbcDataSource db = new org.h2.jdbcx.JdbcDataSource();
    db.setURL("jdbc:h2:mem:schema-upgrade;DB_CLOSE_DELAY=-1");
    String v1 = body("V1__idem_tables.sql", "h2");
    try (Connection c = db.getConnection()) {
      runScript(c, v1);
      assertThat(indexExists(c, "IDEM_RECORDS_SCOPE")).isFalse();
      JdbcSchema.createIfMissing(db, JdbcStoreConfig.of(JdbcDialect.h2()));
      assertThat(indexExists(c, "IDEM_RECORDS_SCOPE")).isTrue();
    }
  }

  private static void runScript(Connection c, String script) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String statement : script.split(";")) {
        String sql =
            statement.lines().filter(l -> !l.startsWith("--")).reduce("", (a, b) -> a + b + "\n");
        if (!sql.isBlank()) {
          s.execute(sql);
        }
      }
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

  private static boolean tableExists(Connection c, String table) throws SQLException {
    try (ResultSet rs = c.getMetaData().getTables(null, null, table, null)) {
      return rs.next();
    }
  }

  private static String read(String resource) throws IOException {
    try (InputStream in = MigrationFilesTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
