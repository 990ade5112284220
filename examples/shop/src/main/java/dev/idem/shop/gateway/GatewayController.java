package dev.idem.shop.gateway;

import dev.idem.shop.ShopException;
import dev.idem.shop.ShopProperties;
import dev.idem.shop.payment.GatewaySecret;
import java.math.BigDecimal;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /gateway/charges}: the fake gateway's API, as a third party's would be, in the same
 * application. The merchant (the shop's {@code CardCharge}) sends the shared secret in {@code
 * X-Gateway-Secret} and an {@code Idempotency-Key}, by which the gateway deduplicates. A lost
 * answer is a 504, after the charge was recorded.
 */
@RestController
class GatewayController {

  /** A charge. */
  record Charge(String paymentNo, String orderNo, BigDecimal amount) {}

  /** The gateway's answer. */
  record Charged(String paymentNo, GatewayOutcome outcome) {}

  private final FakeGateway gateway;
  private final GatewaySecret secret;

  GatewayController(FakeGateway gateway, ShopProperties properties, Environment environment) {
    this.gateway = gateway;
    this.secret = GatewaySecret.of(properties.gateway().secret(), environment);
  }

  @PostMapping("/gateway/charges")
  ResponseEntity<Charged> charge(
      @RequestHeader(value = "X-Gateway-Secret", required = false) String sent,
      @RequestHeader(value = "Idempotency-Key", required = false) String key,
      @RequestBody Charge charge) {
    if (!secret.matches(sent)) {
      throw ShopException.unauthorized("missing or wrong X-Gateway-Secret");
    }
    if (key == null || key.isBlank() || key.length() > 255) {
      throw ShopException.badRequest("invalid-request", "Idempotency-Key is required");
    }
    if (charge == null
        || charge.paymentNo() == null
        || charge.orderNo() == null
        || charge.amount() == null
        || charge.amount().signum() <= 0) {
      throw ShopException.badRequest(
          "invalid-request", "paymentNo, orderNo and a positive amount are required");
    }
    try {
      GatewayOutcome outcome =
          gateway.charge(key, charge.paymentNo(), charge.orderNo(), charge.amount());
      return ResponseEntity.ok(new Charged(charge.paymentNo(), outcome));
    } catch (GatewayTimeoutException e) {
      return ResponseEntity.status(HttpStatus.GATEWAY_TIMEOUT).build();
    }
  }
}
