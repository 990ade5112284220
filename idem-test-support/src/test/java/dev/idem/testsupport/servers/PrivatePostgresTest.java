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
}
