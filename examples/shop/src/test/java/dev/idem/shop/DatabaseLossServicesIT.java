package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.shop.ShopClient.Answer;
import dev.idem.testsupport.net.FaultProxy;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * The shop on PostgreSQL reached through a TCP fault proxy: while the database is cut off, a
 * request gets a 503 problem with Retry-After (not a bare 500), nothing of it is stored, and its
 * retry with the same key runs once the database is back.
 */
@ActiveProfiles("services")
@TestPropertySource(
    locations = "classpath:services-it.properties",
    properties = {
      "spring.datasource.hikari.connection-timeout=1000",
      "spring.datasource.hikari.validation-timeout=500"
    })
@DirtiesContext
class DatabaseLossServicesIT extends EndToEnd {

  static {
    ServicesDatabase.recreateOnce();
  }

  private static final FaultProxy PROXY = FaultProxy.start("127.0.0.1", 5432);

  @DynamicPropertySource
  static void throughTheProxy(DynamicPropertyRegistry registry) {
    registry.add(
        "spring.datasource.url", () -> "jdbc:postgresql://127.0.0.1:" + PROXY.port() + "/shop_it");
  }

  // Runs before the audit check of EndToEnd, which needs the database.
  @AfterEach
  void heal() {
    PROXY.reset();
  }

  @Test
  void anOrderCaughtByALostDatabaseIsA503AndItsRetryRunsOnce() {
    String key = key();
    String body = "{\"items\":[{\"sku\":\"STICKER\",\"quantity\":1}]}";

    PROXY.refuse(true);
    PROXY.cut();
    Answer lost = alice.post("/api/orders", body, "Idempotency-Key", key);
    PROXY.reset();
    // As a client told Retry-After would: the pool may still hand out a connection that died in
    // the cut, which fails that attempt the same way, until it has been replaced.
    Answer retry =
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .until(
                () -> alice.post("/api/orders", body, "Idempotency-Key", key),
                a -> a.status() != 503);

    assertThat(lost.status()).isEqualTo(503);
    assertThat(lost.text("type")).isEqualTo("urn:shop:problem:database-unavailable");
    assertThat(lost.retryAfter()).isEqualTo("1");
    assertThat(retry.status()).isEqualTo(201);
    assertThat(retry.replayed()).isFalse();
    assertThat(count("SELECT COUNT(*) FROM orders WHERE order_no = ?", retry.text("orderNo")))
        .isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"CARD", "WALLET"})
  void aPaymentCaughtByALostDatabaseIsA503AndItsRetryPaysOnce(String method) {
    String orderNo = alice.order("STICKER", 1);
    String key = key();

    PROXY.refuse(true);
    PROXY.cut();
    Answer lost = alice.pay(orderNo, method, key);
    PROXY.reset();
    Answer retry =
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> alice.pay(orderNo, method, key), a -> a.status() != 503);

    assertThat(lost.status()).as(lost.body()).isEqualTo(503);
    assertThat(lost.text("type")).isEqualTo("urn:shop:problem:database-unavailable");
    assertThat(retry.status()).as(retry.body()).isIn(200, 201);
    assertThat(retry.text("status")).isEqualTo("SUCCESS");
    assertThat(
            count(
                "SELECT COUNT(*) FROM payment_records WHERE order_no = ? AND status = 'SUCCESS'",
                orderNo))
        .isEqualTo(1);
  }
}
