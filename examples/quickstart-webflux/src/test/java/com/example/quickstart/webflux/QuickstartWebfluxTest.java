package com.example.quickstart.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The reactive example used as its reader would: over HTTP with a real client, on the Redis at
 * localhost:6379. Keys and orders are fresh per run, since that Redis outlives the test.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class QuickstartWebfluxTest {

  @LocalServerPort int port;
  @Autowired Gateway gateway;

  private final HttpClient http = HttpClient.newHttpClient();
  private final String run = UUID.randomUUID().toString();

  @Test
  void aPaymentSentTwiceIsChargedOnceAndTheRepeatGetsTheFirstAnswer() throws Exception {
    HttpResponse<String> first = post("/payments", "key-1", payment("order-1"));
    HttpResponse<String> again = post("/payments", "key-1", payment("order-1"));

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).contains("order-1");
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(charges("order-1")).isEqualTo(1);
  }

  @Test
  void twentyConcurrentCopiesAreChargedOnceAndAllGetTheAnswer() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> copies = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      copies.add(http.sendAsync(request("/payments", "key-2", payment("order-2")), body()));
    }
    for (CompletableFuture<HttpResponse<String>> copy : copies) {
      assertThat(copy.get().statusCode()).isEqualTo(200);
      assertThat(copy.get().body()).contains("order-2");
    }
    assertThat(charges("order-2")).isEqualTo(1);
  }

  @Test
  void aKeyReusedForAnotherPaymentIsRefusedWithoutACharge() throws Exception {
    post("/payments", "key-3", payment("order-3"));
    HttpResponse<String> reuse = post("/payments", "key-3", payment("order-4"));

    assertThat(reuse.statusCode()).isEqualTo(422);
    assertThat(reuse.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(charges("order-4")).isZero();
  }

  @Test
  void aRefundKeyedByItsOwnIdRunsOnceAndItsReuseIsAnswered422() throws Exception {
    String refund = "{\"id\":\"" + run + "-r1\",\"order\":\"" + run + "-o5\",\"amount\":30}";
    String other = "{\"id\":\"" + run + "-r1\",\"order\":\"" + run + "-o5\",\"amount\":40}";

    HttpResponse<String> first = post("/refunds", null, refund);
    HttpResponse<String> again = post("/refunds", null, refund);
    HttpResponse<String> reuse = post("/refunds", null, other);

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(reuse.statusCode()).isEqualTo(422);
    assertThat(reuse.body()).contains("urn:idem:problem:key-reuse");
    assertThat(gateway.refunds.getOrDefault(run + "-o5", new AtomicInteger()).get()).isEqualTo(1);
  }

  private String payment(String order) {
    return "{\"order\":\"" + run + "-" + order + "\",\"amount\":100}";
  }

  private int charges(String order) {
    return gateway.charges.getOrDefault(run + "-" + order, new AtomicInteger()).get();
  }

  private HttpResponse<String> post(String path, String key, String json) throws Exception {
    return http.send(request(path, key, json), body());
  }

  private HttpRequest request(String path, String key, String json) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    if (key != null) {
      request.header("Idempotency-Key", run + "-" + key);
    }
    return request.build();
  }

  private static HttpResponse.BodyHandler<String> body() {
    return HttpResponse.BodyHandlers.ofString();
  }
}
