package dev.idem.testsupport.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivatePostgresTest {

  @Test
  void aCommittedRowOutlivesAnImmediateStopAndTheFolderGoesAtClose(@TempDir Path dir)
      throws Exception {
    File log = dir.resolve("postgres.log").toFile();
    Path data;
    try (PrivatePostgres postgres = PrivatePostgres.start(log)) {
      postgres.createDatabase("shop");
      String url = postgres.jdbcUrl("shop");
      try (Connection c = DriverManager.getConnection(url, "postgres", "");
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE t (n INT)");
        s.execute("INSERT INTO t VALUES (42)");
      }
      Connection open = DriverManager.getConnection(url, "postgres", "");

      postgres.stop();

      assertThatThrownBy(() -> open.createStatement().execute("SELECT 1"))
          .isInstanceOf(SQLException.class);
      assertThatThrownBy(() -> DriverManager.getConnection(url, "postgres", ""))
          .isInstanceOf(SQLException.class);
      postgres.begin();
      try (Connection c = DriverManager.getConnection(url, "postgres", "");
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT n FROM t")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42);
      }
      data = postgres.folder();
      assertThat(data).isDirectory();
    }
    assertThat(data).doesNotExist();
    assertThat(Files.readString(log.toPath())).contains("database system is ready");
  }

  @Test
  void aServerSettingHoldsFromTheFirstStartAndAfterARestart(@TempDir Path dir) throws Exception {
    File log = dir.resolve("postgres.log").toFile();
    try (PrivatePostgres postgres =
        PrivatePostgres.start(log, Map.of("shared_buffers", "48MB", "work_mem", "5MB"))) {
      assertThat(setting(postgres, "shared_buffers")).isEqualTo("48MB");
      postgres.stop();
      postgres.begin();
      assertThat(setting(postgres, "shared_buffers")).isEqualTo("48MB");
      assertThat(setting(postgres, "work_mem")).isEqualTo("5MB");
    }
  }

  @Test
  void aSettingThatWouldReachTheCommandLineAsMoreThanOneOptionIsRefusedBeforeAnythingStarts(
      @TempDir Path dir) {
    File log = dir.resolve("postgres.log").toFile();
    assertThatThrownBy(() -> PrivatePostgres.start(log, Map.of("work_mem", "5MB -c fsync=off")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("work_mem");
    assertThatThrownBy(() -> PrivatePostgres.start(log, Map.of("a b", "1")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(log).doesNotExist();
  }

  private static String setting(PrivatePostgres postgres, String name) throws SQLException {
    try (Connection c = DriverManager.getConnection(postgres.jdbcUrl("postgres"), "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
