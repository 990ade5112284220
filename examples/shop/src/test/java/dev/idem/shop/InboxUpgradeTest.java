package dev.idem.shop;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;

/** {@link InboxUpgradeTests} on an H2 database in memory. */
class InboxUpgradeTest extends InboxUpgradeTests {

  private final JdbcDataSource dataSource = new JdbcDataSource();

  InboxUpgradeTest() {
    dataSource.setURL("jdbc:h2:mem:inbox-upgrade-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
  }

  @AfterEach
  void dropDatabase() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute("SHUTDOWN");
    }
  }

  @Override
  DataSource dataSource() {
    return dataSource;
  }

  @Override
  String vendor() {
    return "h2";
  }
}
