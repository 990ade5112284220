package dev.idem.shop.payment;

import dev.idem.shop.ShopException;
import dev.idem.spring.Idempotent;
import java.security.Principal;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /api/orders/{orderNo}/payments}. */
@RestController
class PaymentController {

  /** The body: {@code {"method": "CARD"}} or {@code {"method": "WALLET"}}. */
  record PaymentRequest(String method) {}

  /** The answer. */
  record PaymentView(
      String paymentNo,
      String orderNo,
      String method,
      Object amount,
      String status,
      String reason) {
    static PaymentView of(Payment p) {
      return new PaymentView(
          p.paymentNo(),
          p.orderNo(),
          p.method().name(),
          p.amount(),
          p.status().name(),
          p.failureReason());
    }
  }

  private final PaymentService payments;

  PaymentController(PaymentService payments) {
    this.payments = payments;
  }

  @Idempotent(operation = "payments", waitMillis = 10_000)
  @PostMapping("/api/orders/{orderNo}/payments")
  ResponseEntity<PaymentView> pay(
      @PathVariable("orderNo") String orderNo,
      @RequestBody PaymentRequest request,
      Principal principal) {
    PaymentService.Paid paid = payments.pay(principal.getName(), orderNo, method(request));
    return ResponseEntity.status(paid.created() ? HttpStatus.CREATED : HttpStatus.OK)
        .body(PaymentView.of(paid.payment()));
  }

  private static PaymentMethod method(PaymentRequest request) {
    String method = request == null ? null : request.method();
    if ("CARD".equals(method)) {
      return PaymentMethod.CARD;
    }
    if ("WALLET".equals(method)) {
      return PaymentMethod.WALLET;
    }
    throw ShopException.badRequest("invalid-request", "method must be CARD or WALLET");
  }
}
