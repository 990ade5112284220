package dev.idem.shop.payment;

import dev.idem.shop.ShopException;
import dev.idem.shop.ShopProperties;
import dev.idem.shop.gateway.FakeGateway;
import java.util.Map;
import org.springframework.core.env.Environment;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/payments/notify}: the gateway's callback, authenticated by the shared secret in
 * {@code X-Gateway-Secret}. The callback is only a hint that a card payment has an outcome: the
 * shop asks the gateway for it and settles from that answer, never from the body's status, and
 * leaves wallet payments alone (the gateway never sees them). It may repeat and may come before or
 * after the synchronous answer: it settles through the same guarded transition, so only the first
 * arrival changes anything.
 */
@RestController
class NotifyController {

  /** The callback body. */
  record Notice(String paymentNo, String status) {}

  private final PaymentRepository payments;
  private final Settlement settlement;
  private final FakeGateway gateway;
  private final GatewaySecret secret;

  NotifyController(
      PaymentRepository payments,
      Settlement settlement,
      FakeGateway gateway,
      ShopProperties properties,
      Environment environment) {
    this.payments = payments;
    this.settlement = settlement;
    this.gateway = gateway;
    this.secret = GatewaySecret.of(properties.gateway().secret(), environment);
  }

  @PostMapping("/api/payments/notify")
  Map<String, String> notify(
      @RequestHeader(value = "X-Gateway-Secret", required = false) String sent,
      @RequestBody Notice notice) {
    if (!secret.matches(sent)) {
      throw ShopException.unauthorized("missing or wrong X-Gateway-Secret");
    }
    checked(notice);
    Payment payment =
        payments
            .find(notice.paymentNo())
            .orElseThrow(() -> ShopException.notFound("no payment " + notice.paymentNo()));
    if (payment.method() == PaymentMethod.CARD) {
      gateway.query(payment.paymentNo()).ifPresent(outcome -> settlement.settle(payment, outcome));
    }
    Payment now = payments.find(payment.paymentNo()).orElseThrow();
    return Map.of("paymentNo", now.paymentNo(), "status", now.status().name());
  }

  private static void checked(Notice notice) {
    if (notice == null || notice.paymentNo() == null) {
      throw ShopException.badRequest("invalid-request", "paymentNo is required");
    }
    if (!"SUCCESS".equals(notice.status()) && !"FAILED".equals(notice.status())) {
      throw ShopException.badRequest("invalid-request", "status must be SUCCESS or FAILED");
    }
  }
}
