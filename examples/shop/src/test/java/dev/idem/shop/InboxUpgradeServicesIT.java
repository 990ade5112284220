package dev.idem.shop;

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
  void createDatabase() {
    ServicesDatabase.recreatePostgres(DATABASE);
  }

  @AfterEach
  void dropDatabase() {
    ServicesDatabase.dropPostgres(DATABASE);
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
