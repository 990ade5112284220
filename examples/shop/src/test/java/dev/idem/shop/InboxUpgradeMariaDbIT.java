package dev.idem.shop;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.mariadb.jdbc.MariaDbDataSource;

/** {@link InboxUpgradeTests} on MariaDB, in a database of its own ({@code shop_upgrade_it}). */
class InboxUpgradeMariaDbIT extends InboxUpgradeTests {

  private static final String DATABASE = "shop_upgrade_it";

  private final MariaDbDataSource dataSource;

  InboxUpgradeMariaDbIT() throws SQLException {
    dataSource = new MariaDbDataSource("jdbc:mariadb://127.0.0.1:3306/" + DATABASE);
    dataSource.setUser("root");
    dataSource.setPassword("");
  }

  @BeforeEach
  void createDatabase() throws SQLException {
    admin("DROP DATABASE IF EXISTS " + DATABASE);
    admin("CREATE DATABASE " + DATABASE);
  }

  @AfterEach
  void dropDatabase() throws SQLException {
    admin("DROP DATABASE IF EXISTS " + DATABASE);
  }

  private static void admin(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:3306/", "root", "");
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
    return "mysql";
  }
}
