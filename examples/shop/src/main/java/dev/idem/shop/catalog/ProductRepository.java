package dev.idem.shop.catalog;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** Products and their stock. */
@Repository
public class ProductRepository {

  private final JdbcTemplate jdbc;

  ProductRepository(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  public List<Product> all() {
    return jdbc.query(
        "SELECT sku, name, price, stock FROM products ORDER BY sku",
        (rs, i) ->
            new Product(rs.getString(1), rs.getString(2), rs.getBigDecimal(3), rs.getInt(4)));
  }

  public Optional<BigDecimal> price(String sku) {
    return jdbc
        .query("SELECT price FROM products WHERE sku = ?", (rs, i) -> rs.getBigDecimal(1), sku)
        .stream()
        .findFirst();
  }

  /**
   * Takes {@code quantity} off the stock in one conditional update, so the stock never goes below
   * zero, and returns false when there is not enough.
   */
  public boolean take(String sku, int quantity) {
    return jdbc.update(
            "UPDATE products SET stock = stock - ? WHERE sku = ? AND stock >= ?",
            quantity,
            sku,
            quantity)
        == 1;
  }

  /** Adds a product unless one with the SKU exists. */
  public void addIfMissing(String sku, String name, BigDecimal price, int stock) {
    Integer found =
        jdbc.queryForObject("SELECT COUNT(*) FROM products WHERE sku = ?", Integer.class, sku);
    if (found != null && found == 0) {
      jdbc.update(
          "INSERT INTO products (sku, name, price, initial_stock, stock) VALUES (?, ?, ?, ?, ?)",
          sku,
          name,
          price,
          stock,
          stock);
    }
  }
}
