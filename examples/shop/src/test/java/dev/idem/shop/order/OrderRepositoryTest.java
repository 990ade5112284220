package dev.idem.shop.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.math.BigDecimal;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Reads orders through a pool of one connection: a read that holds its connection while it asks for
 * another (a query inside a row mapper) times out here, as it starves a busy pool in production
 * when as many callers as connections do it at once.
 */
class OrderRepositoryTest {

  private static HikariDataSource pool;
  private static OrderRepository orders;

  @BeforeAll
  static void database() {
    String url = "jdbc:h2:mem:one-connection;DB_CLOSE_DELAY=-1";
    Flyway.configure()
        .dataSource(url, "sa", "")
        .locations(
            "classpath:dev/idem/jdbc/flyway/h2",
            "classpath:db/migration/shop/common",
            "classpath:db/migration/shop/h2")
        .load()
        .migrate();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("sa");
    config.setMaximumPoolSize(1);
    config.setConnectionTimeout(250);
    pool = new HikariDataSource(config);
    orders = new OrderRepository(new JdbcTemplate(pool));
    orders.insert("ORD-1", "carol", new BigDecimal("6.00"));
    orders.insertItem("ORD-1", new Order.Item("STICKER", 2, new BigDecimal("2.00")));
    orders.insertItem("ORD-1", new Order.Item("MUG", 1, new BigDecimal("2.00")));
    orders.insert("ORD-2", "carol", new BigDecimal("2.00"));
    orders.insertItem("ORD-2", new Order.Item("STICKER", 1, new BigDecimal("2.00")));
  }

  @AfterAll
  static void close() {
    pool.close();
  }

  @Test
  void anOrderIsReadWithItsItemsOnOneConnection() {
    var found = orders.find("ORD-1").orElseThrow();

    assertThat(found.username()).isEqualTo("carol");
    assertThat(found.order().items())
        .extracting(Order.Item::sku, Order.Item::quantity)
        .containsExactly(tuple("MUG", 1), tuple("STICKER", 2));
    assertThat(orders.find("ORD-9")).isEmpty();
  }

  @Test
  void aUsersOrdersAreReadWithTheirItemsOnOneConnection() {
    assertThat(orders.of("carol"))
        .extracting(Order::orderNo, o -> o.items().size())
        .containsExactlyInAnyOrder(tuple("ORD-1", 2), tuple("ORD-2", 1));
    assertThat(orders.of("nobody")).isEmpty();
  }
}
