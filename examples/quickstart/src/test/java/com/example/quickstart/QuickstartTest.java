package com.example.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.IdemThreads;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

/** The README's example, used as its reader would: over HTTP, with a real client. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class QuickstartTest {

  @LocalServerPort int port;
  @Autowired JdbcTemplate db;
  @Autowired IdemThreads threads;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aPaymentSentTwiceSettlesOnceAndTheRepeatGetsTheFirstAnswer() throws Exception {
    HttpResponse<String> first = pay("key-1", "order-1", "10:00");
    HttpResponse<String> again = pay("key-1", "order-1", "10:01");

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).contains("\"order\":\"order-1\"");
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(settlements("order-1")).isEqualTo(1);
  }

  @Test
  void anotherKeyForTheSameOrderStillSettlesItOnce() throws Exception {
    assertThat(pay("key-2", "order-2", "10:00").statusCode()).isEqualTo(200);
    HttpResponse<String> otherKey = pay("key-3", "order-2", "10:05");

    assertThat(otherKey.statusCode()).isEqualTo(200);
    assertThat(settlements("order-2")).isEqualTo(1);
  }

  @Test
  void anotherAmountForASettledOrderIsRefusedNotAnsweredWithTheFirstReceipt() throws Exception {
    assertThat(pay("key-7", "order-7", 10, "10:00").statusCode()).isEqualTo(200);
    HttpResponse<String> otherAmount = pay("key-8", "order-7", 1000, "10:05");

    assertThat(otherAmount.statusCode()).isEqualTo(422);
    assertThat(otherAmount.body()).contains("urn:idem:problem:key-reuse");
    assertThat(settlements("order-7")).isEqualTo(1);
  }

  @Test
  void theKeyReusedForAnotherPaymentIsRefused() throws Exception {
    pay("key-4", "order-4", "10:00");
    HttpResponse<String> reuse = pay("key-4", "order-5", "10:00");

    assertThat(reuse.statusCode()).isEqualTo(422);
    assertThat(settlements("order-5")).isZero();
  }

  @Test
  void aPaymentWithoutAnOrderIsRefusedWith400AndSettlesNothing() throws Exception {
    int before = settlements();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/payments"))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", "key-6")
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"))
            .build();
    HttpResponse<String> refused = http.send(request, HttpResponse.BodyHandlers.ofString());

    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(refused.body()).contains("urn:idem:problem:missing-key");
    assertThat(settlements()).isEqualTo(before);
  }

  @Test
  void theReadmeShowsThisApplicationsOwnCode() throws Exception {
    String readme = Files.readString(Path.of("../../README.md"));
    String controller =
        Files.readString(Path.of("src/main/java/com/example/quickstart/PaymentController.java"));
    String properties = Files.readString(Path.of("src/main/resources/application.properties"));

    // imports included, so that a reader who copies it finds every type
    assertThat(readme).contains(controller.substring(controller.indexOf("import ")));
    assertThat(readme).contains(properties);
  }

  @Test
  void idemStartsItsThreadsAsTheApplicationAsks() {
    // virtual when spring.threads.virtual.enabled is on and the JDK has them (Java 21 and later)
    boolean asked =
        Boolean.getBoolean("spring.threads.virtual.enabled") && Runtime.version().feature() >= 21;
    assertThat(threads.virtual()).isEqualTo(asked);
  }

  @Test
  void threeHundredTwentyCopiesSentAtOnceSettleEachOrderOnceAndAllGetItsAnswer() throws Exception {
    // 32 orders, each sent 10 times at once under its own key: a burst of 320 duplicates
    Map<String, List<CompletableFuture<HttpResponse<String>>>> sent = new LinkedHashMap<>();
    for (int copy = 0; copy < 10; copy++) {
      for (int order = 0; order < 32; order++) {
        String orderNo = "burst-" + order;
        sent.computeIfAbsent(orderNo, o -> new ArrayList<>())
            .add(
                http.sendAsync(
                    request("burst-key-" + order, orderNo, 100, "11:00"),
                    HttpResponse.BodyHandlers.ofString()));
      }
    }
    for (Map.Entry<String, List<CompletableFuture<HttpResponse<String>>>> order :
        sent.entrySet()) {
      List<HttpResponse<String>> answers = new ArrayList<>();
      for (CompletableFuture<HttpResponse<String>> answer : order.getValue()) {
        answers.add(answer.get(60, TimeUnit.SECONDS));
      }
      assertThat(answers).extracting(HttpResponse::statusCode).containsOnly(200);
      assertThat(answers).extracting(HttpResponse::body).containsOnly(answers.get(0).body());
      assertThat(settlements(order.getKey())).as(order.getKey()).isEqualTo(1);
    }
  }

  private HttpResponse<String> pay(String key, String order, String at) throws Exception {
    return pay(key, order, 100, at);
  }

  private HttpResponse<String> pay(String key, String order, long amount, String at)
      throws Exception {
    return http.send(request(key, order, amount, at), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest request(String key, String order, long amount, String at) {
    String body =
        "{\"order\":\""
            + order
            + "\",\"amount\":"
            + amount
            + ",\"requestedAt\":\""
            + at
            + "\"}";
    return HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/payments"))
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", key)
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  private int settlements() {
    return db.queryForObject("SELECT COUNT(*) FROM settlements", Integer.class);
  }

  private int settlements(String order) {
    Integer n =
        db.queryForObject(
            "SELECT COUNT(*) FROM settlements WHERE order_no = ?", Integer.class, order);
    return n == null ? 0 : n;
  }
}
