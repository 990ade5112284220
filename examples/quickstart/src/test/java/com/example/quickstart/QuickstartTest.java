package com.example.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
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

    assertThat(readme).contains(controller.substring(controller.indexOf("@RestController")));
    assertThat(readme).contains(properties);
  }

  private HttpResponse<String> pay(String key, String order, String at) throws Exception {
    return pay(key, order, 100, at);
  }

  private HttpResponse<String> pay(String key, String order, long amount, String at)
      throws Exception {
    String body =
        "{\"order\":\""
            + order
            + "\",\"amount\":"
            + amount
            + ",\"requestedAt\":\""
            + at
            + "\"}";
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/payments"))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
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
