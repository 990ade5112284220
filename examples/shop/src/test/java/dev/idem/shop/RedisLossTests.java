package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.shop.ShopClient.Answer;
import dev.idem.testsupport.servers.PrivateRedis;
import org.junit.jupiter.api.Test;

/**
 * The idempotency records vanish between a request and its retry (the shop's own redis-server is
 * flushed); the database holds the line. Each database's IT extends it and supplies the server.
 */
abstract class RedisLossTests extends EndToEnd {

  /** The redis-server the shop of this IT runs on, which the test may flush. */
  abstract PrivateRedis redis();

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
}
