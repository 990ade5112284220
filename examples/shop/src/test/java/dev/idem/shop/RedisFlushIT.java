package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.shop.ShopClient.Answer;
import dev.idem.shop.gateway.Behaviour;
import dev.idem.shop.gateway.Behaviour.Callback;
import dev.idem.shop.gateway.FakeGateway;
import dev.idem.testsupport.servers.ClosedAfterAll;
import dev.idem.testsupport.servers.PrivateRedis;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The idempotency records vanish between a request and its retry (the shop's own redis-server is
 * flushed); the database holds the line. Runs on each services backend (the build's PostgreSQL and
 * MariaDB runs), with the shop on a redis-server of its own.
 */
@DirtiesContext
class RedisFlushIT extends EndToEnd {

  @Autowired FakeGateway gateway;

  // Stops after the Spring context closes (see ClosedAfterAll).
  @RegisterExtension
  static final ClosedAfterAll<PrivateRedis> REDIS = ClosedAfterAll.of(PrivateRedis.start());

  @BeforeAll
  static void onServices() {
    assumeTrue(
        Backend.current().services(), "runs with -D" + Backend.PROPERTY + "=postgres|mariadb");
  }

  @DynamicPropertySource
  static void privateRedis(DynamicPropertyRegistry registry) {
    registry.add("shop.redis.url", REDIS.get()::url);
  }

  private PrivateRedis redis() {
    return REDIS.get();
  }

  @Test
  void anOrderRetriedAfterRedisLostItsRecordIsStillOneOrder() {
    String key = key();
    String body = "{\"items\":[{\"sku\":\"STICKER\",\"quantity\":2}]}";
    long stockBefore = count("SELECT stock FROM products WHERE sku = 'STICKER'");

    Answer first = alice.post("/api/orders", body, "Idempotency-Key", key);
    redis().flushAll();
    Answer retry = alice.post("/api/orders", body, "Idempotency-Key", key);

    assertThat(first.status()).isEqualTo(201);
    assertThat(retry.replayed()).isFalse();
    assertThat(retry.status()).isEqualTo(200);
    assertThat(retry.text("orderNo")).isEqualTo(first.text("orderNo"));
    assertThat(count("SELECT stock FROM products WHERE sku = 'STICKER'"))
        .isEqualTo(stockBefore - 2);
  }

  @Test
  void aPaymentRetriedAfterRedisLostItsRecordChargesOnce() {
    String orderNo = alice.order("STICKER", 1);
    String key = key();

    Answer first = alice.pay(orderNo, "WALLET", key);
    redis().flushAll();
    Answer retry = alice.pay(orderNo, "WALLET", key);

    assertThat(first.text("status")).isEqualTo("SUCCESS");
    assertThat(retry.status()).isEqualTo(409);
    assertThat(retry.text("type")).isEqualTo("urn:shop:problem:order-paid");
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", orderNo))
        .isEqualTo(1);
  }

  @Test
  void aPaymentLeftUnfinishedWhenRedisLostEverythingIsStillFinishedOnceByTheCompleter() {
    String orderNo = alice.order("STICKER", 1);
    gateway.script(Behaviour.approve().timingOut().callback(Callback.NONE, 0));

    Answer lost = alice.pay(orderNo, "CARD", key());
    redis().flushAll();

    assertThat(lost.status()).isEqualTo(504);
    // The flow's entry is in the database, not in Redis: the completer still finds it, claims
    // the key anew, asks the gateway again under the same payment number and settles.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> alice.get("/api/orders/" + orderNo).text("status"), "PAID"::equals);
    assertThat(charges(orderNo)).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM payment_records WHERE order_no = ?", orderNo))
        .isEqualTo(1);
  }
}
