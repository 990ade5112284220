package dev.idem.shop.order;

import dev.idem.shop.ShopException;
import dev.idem.shop.catalog.ProductRepository;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Creates orders: the order row, its lines and one stock deduction per line commit together, or
 * nothing does.
 */
@Service
public class OrderService {

  /** The order, and whether this call created it (false: it existed with the same content). */
  public record Placed(Order order, boolean created) {}

  private final OrderRepository orders;
  private final ProductRepository products;
  private final TransactionTemplate tx;

  OrderService(OrderRepository orders, ProductRepository products, TransactionTemplate tx) {
    this.orders = orders;
    this.products = products;
    this.tx = tx;
  }

  /**
   * Places the order; the request has passed its Bean Validation constraints. An unknown SKU can
   * still meet a product removed since, and is refused with 400 then. An order number that exists
   * already answers that order when it is the caller's with the same lines (the unique index
   * stopped a repeat), and 409 {@code order-exists} otherwise.
   */
  public Placed place(String username, OrderRequest request, String key) {
    List<OrderRequest.Line> lines = sorted(request);
    String orderNo =
        request.orderNo() != null
            ? OrderNumbers.chosen(request.orderNo())
            : OrderNumbers.derived(username, key);
    try {
      return new Placed(tx.execute(s -> insert(orderNo, username, lines)), true);
    } catch (DuplicateKeyException e) {
      return new Placed(existing(orderNo, username, lines), false);
    }
  }

  private Order insert(String orderNo, String username, List<OrderRequest.Line> lines) {
    List<Order.Item> items = new ArrayList<>();
    BigDecimal amount = BigDecimal.ZERO;
    for (OrderRequest.Line line : lines) {
      BigDecimal price =
          products
              .price(line.sku())
              .orElseThrow(
                  () -> ShopException.badRequest("unknown-product", "no product " + line.sku()));
      items.add(new Order.Item(line.sku(), line.quantity(), price));
      amount = amount.add(price.multiply(BigDecimal.valueOf(line.quantity())));
    }
    orders.insert(orderNo, username, amount);
    for (Order.Item item : items) {
      orders.insertItem(orderNo, item);
      orders.insertDeduction(orderNo, item.sku(), item.quantity());
      if (!products.take(item.sku(), item.quantity())) {
        throw ShopException.conflict(
            "out-of-stock",
            "not enough " + item.sku() + " in stock for " + item.quantity(),
            Map.of("sku", item.sku()));
      }
    }
    return new Order(orderNo, Order.CREATED, amount, items);
  }

  private Order existing(String orderNo, String username, List<OrderRequest.Line> lines) {
    Order found =
        orders
            .find(orderNo)
            .filter(owned -> owned.username().equals(username))
            .map(OrderRepository.Owned::order)
            .filter(order -> sameLines(order, lines))
            .orElse(null);
    if (found == null) {
      throw ShopException.conflict(
          "order-exists", "order " + orderNo + " exists already", Map.of("orderNo", orderNo));
    }
    return found;
  }

  private static boolean sameLines(Order order, List<OrderRequest.Line> lines) {
    if (order.items().size() != lines.size()) {
      return false;
    }
    for (int i = 0; i < lines.size(); i++) {
      Order.Item item = order.items().get(i);
      if (!item.sku().equals(lines.get(i).sku()) || item.quantity() != lines.get(i).quantity()) {
        return false;
      }
    }
    return true;
  }

  /** The lines sorted by SKU (one lock order for every transaction); validated by Spring. */
  private static List<OrderRequest.Line> sorted(OrderRequest request) {
    List<OrderRequest.Line> sorted = new ArrayList<>(request.items());
    sorted.sort(Comparator.comparing(OrderRequest.Line::sku));
    return sorted;
  }
}
