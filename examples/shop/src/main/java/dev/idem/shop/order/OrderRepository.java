package dev.idem.shop.order;

import dev.idem.shop.internal.DatabaseClock;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** Orders, their lines and their stock deductions. */
@Repository
public class OrderRepository {

  /** An order with its owner. */
  public record Owned(String username, Order order) {}

  private final JdbcTemplate jdbc;

  OrderRepository(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /** Inserts the order row; a second insert of the number fails on the unique index. */
  void insert(String orderNo, String username, BigDecimal amount) {
    jdbc.update(
        "INSERT INTO orders (order_no, username, status, amount) VALUES (?, ?, ?, ?)",
        orderNo,
        username,
        Order.CREATED,
        amount);
  }

  void insertItem(String orderNo, Order.Item item) {
    jdbc.update(
        "INSERT INTO order_items (order_no, sku, quantity, price) VALUES (?, ?, ?, ?)",
        orderNo,
        item.sku(),
        item.quantity(),
        item.price());
  }

  /** Logs the deduction; unique per order and SKU, so it can be written once. */
  void insertDeduction(String orderNo, String sku, int quantity) {
    jdbc.update(
        "INSERT INTO stock_deductions (order_no, sku, quantity) VALUES (?, ?, ?)",
        orderNo,
        sku,
        quantity);
  }

  public Optional<Owned> find(String orderNo) {
    List<Owned> found =
        jdbc.query(
            "SELECT username, status, amount FROM orders WHERE order_no = ?",
            (rs, i) ->
                new Owned(
                    rs.getString(1),
                    new Order(orderNo, rs.getString(2), rs.getBigDecimal(3), items(orderNo))),
            orderNo);
    return found.stream().findFirst();
  }

  /** The caller's orders, newest first. */
  public List<Order> of(String username) {
    return jdbc.query(
        "SELECT order_no, status, amount FROM orders WHERE username = ?"
            + " ORDER BY created_at DESC, order_no",
        (rs, i) ->
            new Order(
                rs.getString(1), rs.getString(2), rs.getBigDecimal(3), items(rs.getString(1))),
        username);
  }

  /** CREATED to PAID as one guarded update; true only for the call that changed it. */
  public boolean markPaid(String orderNo) {
    return jdbc.update(
            "UPDATE orders SET status = ?, paid_at = "
                + DatabaseClock.NOW
                + " WHERE order_no = ? AND status = ?",
            Order.PAID,
            orderNo,
            Order.CREATED)
        == 1;
  }

  private List<Order.Item> items(String orderNo) {
    return jdbc.query(
        "SELECT sku, quantity, price FROM order_items WHERE order_no = ? ORDER BY sku",
        (rs, i) -> new Order.Item(rs.getString(1), rs.getInt(2), rs.getBigDecimal(3)),
        orderNo);
  }
}
