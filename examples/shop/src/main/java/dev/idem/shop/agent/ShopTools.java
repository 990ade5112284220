package dev.idem.shop.agent;

import dev.idem.shop.order.Order;
import dev.idem.shop.order.OrderRequest;
import dev.idem.shop.order.OrderService;
import dev.idem.shop.payment.Payment;
import dev.idem.shop.payment.PaymentMethod;
import dev.idem.shop.payment.PaymentService;
import dev.idem.spring.Idempotent;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;

/**
 * "Place an order" and "pay" as tools an AI agent calls over MCP ({@code /mcp}, Streamable HTTP,
 * HTTP Basic as the shopper). An agent retries after a timeout or a lost connection; each tool
 * names an {@code idempotencyKey} its schema documents, and a retry with the same key gets the
 * first answer without ordering or charging again. The same services as the HTTP API: an order's
 * number is derived from the shopper and the key, and a payment goes through the same state
 * machine.
 */
@Component
public class ShopTools {

  private final OrderService orders;
  private final PaymentService payments;
  private final Validator validator;

  ShopTools(OrderService orders, PaymentService payments, Validator validator) {
    this.orders = orders;
    this.payments = payments;
    this.validator = validator;
  }

  /** What an agent gets back for an order. */
  public record PlacedOrder(String orderNo, String status, String amount) {}

  /** What an agent gets back for a payment. */
  public record PaymentAnswer(String paymentNo, String orderNo, String status, String reason) {}

  @Tool(
      name = "place_order",
      description =
          "Orders a quantity of one product of the catalogue for the signed-in shopper. Send the"
              + " same idempotencyKey with every retry of this order and a new one for a new order.")
  @Idempotent(operation = "agent orders", waitFor = "10s")
  public PlacedOrder placeOrder(
      @ToolParam(description = "the product's SKU, for example STICKER") String sku,
      @ToolParam(description = "how many, 1 to 1000") int quantity,
      @ToolParam(description = "a unique value per order, the same on every retry of it")
          String idempotencyKey) {
    OrderRequest request = new OrderRequest(null, List.of(new OrderRequest.Line(sku, quantity)));
    // the HTTP API checks the body before its handler runs; a tool's arguments come unchecked
    Set<ConstraintViolation<OrderRequest>> refused = validator.validate(request);
    if (!refused.isEmpty()) {
      throw new IllegalArgumentException(
          refused.stream()
              .map(v -> v.getPropertyPath() + " " + v.getMessage())
              .sorted()
              .collect(Collectors.joining("; ")));
    }
    Order order = orders.place(shopper(), request, idempotencyKey).order();
    return new PlacedOrder(order.orderNo(), order.status(), order.amount().toPlainString());
  }

  @Tool(
      name = "pay",
      description =
          "Pays an order of the signed-in shopper from the wallet (WALLET) or by card (CARD). Send"
              + " the same idempotencyKey with every retry of this payment.")
  @Idempotent(operation = "agent payments", waitFor = "10s")
  public PaymentAnswer pay(
      @ToolParam(description = "the order number place_order answered") String orderNo,
      @ToolParam(description = "WALLET or CARD") PaymentMethod method,
      @ToolParam(description = "a unique value per payment, the same on every retry of it")
          String idempotencyKey) {
    Payment payment = payments.pay(shopper(), orderNo, method).payment();
    return new PaymentAnswer(
        payment.paymentNo(), payment.orderNo(), payment.status().name(), payment.failureReason());
  }

  // the MCP endpoint is authenticated, and a tool runs on the request's thread
  private static String shopper() {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    if (authentication == null || !authentication.isAuthenticated()) {
      throw new IllegalStateException("an agent's tool call needs a signed-in shopper");
    }
    return authentication.getName();
  }
}
