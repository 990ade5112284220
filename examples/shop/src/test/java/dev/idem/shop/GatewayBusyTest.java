package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.shop.ShopClient.Answer;
import dev.idem.shop.gateway.FakeGateway;
import dev.idem.shop.gateway.GatewayHold;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * The charges one instance has waiting for the gateway are bounded, since the gateway is served on
 * the application's own threads: one past the bound is refused before it is sent (503 {@code
 * gateway-busy}), and its retry with the same key pays once.
 */
@TestPropertySource(properties = "shop.gateway.max-concurrent-charges=1")
class GatewayBusyTest extends EndToEnd {

  @Autowired FakeGateway gateway;

  @Test
  void aChargePastTheBoundIsRefusedUnsentAndItsRetryPaysOnce() throws Exception {
    String held = alice.order("STICKER", 1);
    String refused = alice.order("STICKER", 2);
    String key = key();
    GatewayHold hold = gateway.holdNextCharge();
    CompletableFuture<Answer> first =
        CompletableFuture.supplyAsync(() -> alice.pay(held, "CARD", key()));
    assertThat(hold.awaitCharge(Duration.ofSeconds(20))).isTrue();

    Answer busy = alice.pay(refused, "CARD", key);
    hold.release();
    Answer retry = alice.pay(refused, "CARD", key);

    assertThat(busy.status()).isEqualTo(503);
    assertThat(busy.text("type")).isEqualTo("urn:shop:problem:gateway-busy");
    assertThat(busy.retryAfter()).isNotNull();
    assertThat(first.get().text("status")).isEqualTo("SUCCESS");
    assertThat(retry.status()).isEqualTo(200);
    assertThat(retry.text("status")).isEqualTo("SUCCESS");
    for (String orderNo : new String[] {held, refused}) {
      assertThat(count("SELECT COUNT(*) FROM gateway_requests WHERE order_no = ?", orderNo))
          .isEqualTo(1);
    }
  }
}
