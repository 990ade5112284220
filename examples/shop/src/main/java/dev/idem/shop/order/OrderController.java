package dev.idem.shop.order;

import dev.idem.shop.ShopException;
import dev.idem.spring.Idempotent;
import jakarta.validation.Valid;
import java.net.URI;
import java.security.Principal;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
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
  @Idempotent(operation = "orders", waitMillis = 10_000)
  @PostMapping("/api/orders")
  ResponseEntity<Order> create(
      @Valid @RequestBody OrderRequest request,
      Principal principal,
      @RequestHeader(value = "Idempotency-Key", required = false) String key,
      @RequestHeader(value = "X-Idempotent-Token", required = false) String token) {
    OrderService.Placed placed =
        service.place(principal.getName(), request, key != null ? key : token);
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
