package dev.idem.shop.gateway;

import dev.idem.shop.ShopException;
import dev.idem.shop.ShopProperties;
import dev.idem.shop.payment.GatewaySecret;
import java.math.BigDecimal;
import java.util.regex.Pattern;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /gateway/charges}: the fake gateway's API, as a third party's would be, in the same
 * application. The merchant (the shop's {@code CardCharge}) sends the shared secret in {@code
 * X-Gateway-Secret} and an {@code Idempotency-Key}, by which the gateway deduplicates: a repeat of
 * the key with the same charge gets the first outcome, with another charge a 422. A lost answer is
 * a 504, after the charge was recorded.
 */
@RestController
class GatewayController {

  /** A charge. */
  record Charge(String paymentNo, String orderNo, BigDecimal amount) {}

  /** The gateway's answer. */
  record Charged(String paymentNo, GatewayOutcome outcome) {}

  private static final Pattern KEY = Pattern.compile("[!-~]{1,255}");
  private static final Pattern REFERENCE = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final BigDecimal LARGEST = BigDecimal.TEN.pow(10);

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
    if (key == null || !KEY.matcher(key).matches()) {
      throw ShopException.badRequest(
          "invalid-request", "Idempotency-Key is required: 1 to 255 visible ASCII characters");
    }
    if (charge == null
        || !isReference(charge.paymentNo())
        || !isReference(charge.orderNo())
        || !isAmount(charge.amount())) {
      throw ShopException.badRequest(
          "invalid-request",
          "paymentNo and orderNo are 1 to 64 letters, digits, '-' or '_'; amount is positive,"
              + " in cents at most, under 10^10");
    }
    try {
      GatewayOutcome outcome =
          gateway.charge(key, charge.paymentNo(), charge.orderNo(), charge.amount());
      return ResponseEntity.ok(new Charged(charge.paymentNo(), outcome));
    } catch (GatewayTimeoutException e) {
      return ResponseEntity.status(HttpStatus.GATEWAY_TIMEOUT).build();
    } catch (GatewayKeyReuseException e) {
      return ResponseEntity.status(HttpStatusCode.valueOf(422)).build();
    }
  }

  private static boolean isReference(String value) {
    return value != null && REFERENCE.matcher(value).matches();
  }

  private static boolean isAmount(BigDecimal amount) {
    return amount != null
        && amount.signum() > 0
        && amount.stripTrailingZeros().scale() <= 2
        && amount.compareTo(LARGEST) < 0;
  }
}
