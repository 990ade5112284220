package dev.idem.shop;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.postgresql.ds.PGSimpleDataSource;

/** {@link InboxUpgradeTests} on PostgreSQL, in a database of its own ({@code shop_upgrade_it}). */
class InboxUpgradeServicesIT extends InboxUpgradeTests {

  private static final String DATABASE = "shop_upgrade_it";

  private final PGSimpleDataSource dataSource = new PGSimpleDataSource();

  InboxUpgradeServicesIT() {
    dataSource.setURL("jdbc:postgresql://127.0.0.1:5432/" + DATABASE);
    dataSource.setUser("postgres");
  }

  @BeforeEach
  void createDatabase() throws SQLException {
    admin("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
    admin("CREATE DATABASE " + DATABASE);
  }

  @AfterEach
  void dropDatabase() throws SQLException {
    admin("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
  }

  private static void admin(String sql) throws SQLException {
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  DataSource dataSource() {
    return dataSource;
  }

  @Override
  String vendor() {
    return "postgresql";
  }
}
