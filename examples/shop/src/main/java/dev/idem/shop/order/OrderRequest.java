package dev.idem.shop.order;

import java.util.List;

/**
 * The body of {@code POST /api/orders}.
 *
 * @param orderNo optional order number chosen by the client; the server derives one from the caller
 *     and the idempotency key when it is absent
 * @param items what to buy, each SKU once
 */
public record OrderRequest(String orderNo, List<Line> items) {

  /** One line of the order. */
  public record Line(String sku, Integer quantity) {}
}
