package dev.idem.shop.order;

import dev.idem.shop.ShopException;
import dev.idem.spring.Idempotent;
import dev.idem.spring.web.IdempotencyFilter;
import jakarta.validation.Valid;
import java.net.URI;
import java.security.Principal;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** Orders: create with an idempotency key or token, read your own. */
@RestController
class OrderController {

  private final OrderService service;
  private final OrderRepository orders;

  OrderController(OrderService service, OrderRepository orders) {
    this.service = service;
    this.orders = orders;
  }

  // Duplicates in flight wait for the first and get its answer, so a double click sees one order.
  @Idempotent(operation = "orders", waitFor = "10s")
  @PostMapping("/api/orders")
  ResponseEntity<Order> create(
      @Valid @RequestBody OrderRequest request,
      Principal principal,
      // The key exactly as the filter parsed and stored it (header or token), so that a retry
      // sending the header quoted, bare or twice derives the same order number.
      @RequestAttribute(name = IdempotencyFilter.KEY_ATTRIBUTE, required = false) String key) {
    OrderService.Placed placed = service.place(principal.getName(), request, key);
    Order order = placed.order();
    if (!placed.created()) {
      return ResponseEntity.ok(order);
    }
    return ResponseEntity.created(URI.create("/api/orders/" + order.orderNo())).body(order);
  }

  @GetMapping("/api/orders/{orderNo}")
  Order one(@PathVariable("orderNo") String orderNo, Principal principal) {
    return orders
        .find(orderNo)
        .filter(owned -> owned.username().equals(principal.getName()))
        .map(OrderRepository.Owned::order)
        .orElseThrow(() -> ShopException.notFound("no order " + orderNo));
  }

  @GetMapping("/api/orders")
  List<Order> mine(Principal principal) {
    return orders.of(principal.getName());
  }
}
