package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.client.IdempotentRetries;
import dev.idem.testsupport.net.FaultProxy;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * A client on {@link IdempotentRetries} talks to the shop through a proxy that loses the shop's
 * first reply: the request ran, the client saw a reset. The retry under the same key gets the first
 * answer back, and the effect happened once.
 */
class LostRepliesTest extends EndToEnd {

  private FaultProxy proxy;
  private RestClient client;

  @BeforeEach
  void throughAProxy() {
    proxy = FaultProxy.start("127.0.0.1", port);
    client =
        RestClient.builder()
            .baseUrl("http://" + proxy.host() + ":" + proxy.port())
            .requestFactory(new JdkClientHttpRequestFactory())
            .defaultHeaders(h -> h.setBasicAuth("alice", "alice"))
            .requestInterceptor(
                IdempotentRetries.builder()
                    .delay(Duration.ofMillis(20), Duration.ofMillis(200))
                    .keysHonouredBy("http://" + proxy.host() + ":" + proxy.port())
                    .build())
            .build();
  }

  @AfterEach
  void closeProxy() {
    proxy.close();
  }

  @Test
  void anOrderWhoseReplyIsLostIsPlacedOnceAndTheRetryGetsItsAnswer() {
    long stockBefore = count("SELECT stock FROM products WHERE sku = 'STICKER'");
    long ordersBefore = count("SELECT COUNT(*) FROM orders");
    proxy.loseReplies(1);

    ResponseEntity<JsonNode> answer =
        post("/api/orders", "{\"items\":[{\"sku\":\"STICKER\",\"quantity\":1}]}");

    assertThat(proxy.bytesDropped()).isPositive();
    assertThat(answer.getStatusCode().value()).isEqualTo(201);
    assertThat(answer.getHeaders().getFirst("Idempotent-Replayed")).isEqualTo("true");
    String orderNo = answer.getBody().path("orderNo").asString();
    assertThat(count("SELECT COUNT(*) FROM orders")).isEqualTo(ordersBefore + 1);
    assertThat(count("SELECT COUNT(*) FROM orders WHERE order_no = ?", orderNo)).isEqualTo(1);
    assertThat(count("SELECT stock FROM products WHERE sku = 'STICKER'"))
        .isEqualTo(stockBefore - 1);
  }

  @Test
  void aPaymentWhoseReplyIsLostChargesOnce() {
    String orderNo = alice.order("STICKER", 1);
    proxy.loseReplies(1);

    ResponseEntity<JsonNode> answer =
        post("/api/orders/" + orderNo + "/payments", "{\"method\":\"WALLET\"}");

    assertThat(proxy.bytesDropped()).isPositive();
    assertThat(answer.getHeaders().getFirst("Idempotent-Replayed")).isEqualTo("true");
    assertThat(answer.getBody().path("status").asString()).isEqualTo("SUCCESS");
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM payment_records WHERE order_no = ?", orderNo))
        .isEqualTo(1);
  }

  private ResponseEntity<JsonNode> post(String path, String json) {
    return client
        .post()
        .uri(path)
        .contentType(MediaType.APPLICATION_JSON)
        .body(json)
        .retrieve()
        .toEntity(JsonNode.class);
  }
}
