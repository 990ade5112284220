package dev.idem.shop.payment;

import dev.idem.shop.ShopException;
import dev.idem.shop.ShopProperties;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/payments/notify}: the gateway's callback, authenticated by the shared secret in
 * {@code X-Gateway-Secret}. It may repeat and may come before or after the synchronous answer: it
 * settles through the same guarded transition, so only the first arrival changes anything.
 */
@RestController
class NotifyController {

  /** The callback body. */
  record Notice(String paymentNo, String status) {}

  private final PaymentRepository payments;
  private final Settlement settlement;
  private final byte[] secret;

  NotifyController(PaymentRepository payments, Settlement settlement, ShopProperties properties) {
    this.payments = payments;
    this.settlement = settlement;
    this.secret = properties.gateway().secret().getBytes(StandardCharsets.UTF_8);
  }

  @PostMapping("/api/payments/notify")
  Map<String, String> notify(
      @RequestHeader(value = "X-Gateway-Secret", required = false) String sent,
      @RequestBody Notice notice) {
    if (sent == null || !MessageDigest.isEqual(secret, sent.getBytes(StandardCharsets.UTF_8))) {
      throw ShopException.unauthorized("missing or wrong X-Gateway-Secret");
    }
    PaymentStatus to = target(notice);
    Payment payment =
        payments
            .find(notice.paymentNo())
            .orElseThrow(() -> ShopException.notFound("no payment " + notice.paymentNo()));
    settlement.settle(payment, to, to == PaymentStatus.FAILED ? "declined by the gateway" : null);
    Payment now = payments.find(payment.paymentNo()).orElseThrow();
    return Map.of("paymentNo", now.paymentNo(), "status", now.status().name());
  }

  private static PaymentStatus target(Notice notice) {
    if (notice == null || notice.paymentNo() == null) {
      throw ShopException.badRequest("invalid-request", "paymentNo is required");
    }
    if ("SUCCESS".equals(notice.status())) {
      return PaymentStatus.SUCCESS;
    }
    if ("FAILED".equals(notice.status())) {
      return PaymentStatus.FAILED;
    }
    throw ShopException.badRequest("invalid-request", "status must be SUCCESS or FAILED");
  }
}
