package dev.idem.shop.order;

import java.math.BigDecimal;
import java.util.List;

/** An order as the API shows it. */
public record Order(String orderNo, String status, BigDecimal amount, List<Item> items) {

  /** A line of the order at the price it was bought at. */
  public record Item(String sku, int quantity, BigDecimal price) {}

  public static final String CREATED = "CREATED";
  public static final String PAID = "PAID";
}
