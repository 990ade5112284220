package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.Idempotent;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A guarded request whose handler calls a keyless {@code @Idempotent} service method: the method is
 * a step of the request, so a retry after the handler failed (a 500, the key released) does not run
 * it again, and the retry's answer carries the first charge.
 */
@SpringBootTest(
    classes = StepsOverHttpTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StepsOverHttpTest {

  @LocalServerPort int port;
  @Autowired Cards cards;

  @Test
  void aStepOnARouteNoKeyGuardsFailsBeforeItCharges() {
    HttpResponse<String> refused =
        new Http(port).send("POST", "/unguarded/A-2", null, "X-Fail-After-Charge", "no");

    assertThat(refused.statusCode()).isEqualTo(500);
    assertThat(cards.charged("A-2")).isZero();
  }

  @Test
  void aRetriedRequestGetsItsStepsResultInsteadOfChargingAgain() {
    Http http = new Http(port);
    String key = UUID.randomUUID().toString();
    String[] headers = {"Idempotency-Key", key, "X-Fail-After-Charge", "yes"};

    HttpResponse<String> failed = http.send("POST", "/pay/A-1", null, headers);
    assertThat(failed.statusCode()).isEqualTo(500);
    HttpResponse<String> retried =
        http.send("POST", "/pay/A-1", null, "Idempotency-Key", key, "X-Fail-After-Charge", "no");
    HttpResponse<String> repeated =
        http.send("POST", "/pay/A-1", null, "Idempotency-Key", key, "X-Fail-After-Charge", "no");

    assertThat(retried.statusCode()).as(retried.body()).isEqualTo(201);
    assertThat(retried.body()).isEqualTo("paid A-1 with charge 1");
    assertThat(repeated.body()).isEqualTo(retried.body());
    assertThat(repeated.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(cards.charged("A-1")).isEqualTo(1);
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration(
      excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
  @Import({Cards.class, PayController.class})
  static class App {}

  /** The card network: a keyless step of whatever guarded call charges. */
  public static class Cards {
    private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();

    @Idempotent
    public String charge(String orderNo) {
      return "charge "
          + charges.computeIfAbsent(orderNo, o -> new AtomicInteger()).incrementAndGet();
    }

    public int charged(String orderNo) {
      AtomicInteger n = charges.get(orderNo);
      return n == null ? 0 : n.get();
    }
  }

  @RestController
  static class PayController {
    private final Cards cards;

    PayController(Cards cards) {
      this.cards = cards;
    }

    @Idempotent
    @PostMapping("/pay/{orderNo}")
    ResponseEntity<String> pay(
        @PathVariable String orderNo,
        @org.springframework.web.bind.annotation.RequestHeader("X-Fail-After-Charge") String fail) {
      String charge = cards.charge(orderNo);
      if (fail.equals("yes")) {
        throw new IllegalStateException("the order service fell over after the charge");
      }
      return ResponseEntity.status(201).body("paid " + orderNo + " with " + charge);
    }

    @PostMapping("/unguarded/{orderNo}")
    ResponseEntity<String> unguarded(@PathVariable String orderNo) {
      return ResponseEntity.status(201).body(cards.charge(orderNo));
    }
  }
}
