package dev.idem.shop.order;

import dev.idem.shop.internal.DatabaseClock;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.stereotype.Repository;

/** Orders, their lines and their stock deductions. */
@Repository
public class OrderRepository {

  /** An order with its owner. */
  public record Owned(String username, Order order) {}

  private record Head(String orderNo, String username, String status, BigDecimal amount) {
    Order order(List<Order.Item> items) {
      return new Order(orderNo, status, amount, items);
    }
  }

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

  // Each read takes its rows first and the items after: a query inside a row mapper would take a
  // second connection while the first is still held, and enough concurrent callers would hold
  // every connection of the pool while each waits for one more.
  public Optional<Owned> find(String orderNo) {
    return jdbc
        .query(
            "SELECT username, status, amount FROM orders WHERE order_no = ?",
            (rs, i) -> new Head(orderNo, rs.getString(1), rs.getString(2), rs.getBigDecimal(3)),
            orderNo)
        .stream()
        .findFirst()
        .map(h -> new Owned(h.username(), h.order(items(orderNo))));
  }

  /** The caller's orders, newest first. */
  public List<Order> of(String username) {
    List<Head> heads =
        jdbc.query(
            "SELECT order_no, status, amount FROM orders WHERE username = ?"
                + " ORDER BY created_at DESC, order_no",
            (rs, i) -> new Head(rs.getString(1), username, rs.getString(2), rs.getBigDecimal(3)),
            username);
    Map<String, List<Order.Item>> items = new HashMap<>();
    jdbc.query(
        "SELECT i.order_no, i.sku, i.quantity, i.price FROM order_items i"
            + " JOIN orders o ON o.order_no = i.order_no WHERE o.username = ? ORDER BY i.sku",
        (RowCallbackHandler)
            rs ->
                items
                    .computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                    .add(new Order.Item(rs.getString(2), rs.getInt(3), rs.getBigDecimal(4))),
        username);
    return heads.stream().map(h -> h.order(items.getOrDefault(h.orderNo(), List.of()))).toList();
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
