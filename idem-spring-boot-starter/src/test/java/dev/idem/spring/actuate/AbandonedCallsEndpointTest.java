package dev.idem.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.resume.Completer;
import dev.idem.spring.Idempotent;
import dev.idem.spring.aop.ResumableMethods;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The abandoned calls of resumable methods through the {@code idempotency} endpoint over real HTTP,
 * behind the same security as {@link IdempotencyEndpointTest}: an operator lists them (their
 * arguments left out), retries one (the next pass finishes it) or drops one (no pass runs it).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = IdempotencyEndpointTest.OperatorApplication.class,
    properties = {
      "management.endpoints.web.exposure.include=health,idempotency",
      "management.endpoint.idempotency.access=unrestricted",
      "spring.autoconfigure.exclude=",
      "idem.completer.interval=1h",
      "idem.completer.max-attempts=1"
    })
@Import(AbandonedCallsEndpointTest.Refunds.class)
@ExtendWith(OutputCaptureExtension.class)
class AbandonedCallsEndpointTest {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort int port;

  @Autowired Refunds refunds;

  @Autowired ResumableMethods resumables;

  @Test
  void anOperatorListsAnAbandonedCallWithoutItsArgumentsAndRetriesIt(CapturedOutput output)
      throws Exception {
    String order = abandon("card 4111 1111 1111 1111");

    HttpResponse<String> listed =
        send("olga", get("/actuator/idempotency/abandoned?operation=refund"));
    assertThat(listed.statusCode()).isEqualTo(200);
    JsonNode calls = JSON.readTree(listed.body());
    JsonNode call = only(calls, order);
    assertThat(call.get("attempts").asInt()).isEqualTo(1);
    assertThat(listed.body()).doesNotContain("4111");
    assertThat(send("victor", get("/actuator/idempotency/abandoned?operation=refund")).statusCode())
        .isEqualTo(403);

    refunds.up();
    HttpResponse<String> retried = send("olga", write("POST", call.get("id").asString()));

    assertThat(retried.statusCode()).isEqualTo(200);
    Completer.Pass pass = resumables.runOnce();
    assertThat(pass.finished()).as("%s", pass).isEqualTo(1);
    assertThat(refunds.refund(order, "card 4111 1111 1111 1111")).isEqualTo("refunded " + order);
    assertThat(refunds.made()).isEqualTo(1);
    assertThat(output.getOut()).contains("'olga' through the idempotency endpoint");
  }

  @Test
  void anOperatorDropsAnAbandonedCallAndNoPassRunsIt() throws Exception {
    String order = abandon("cash");
    JsonNode call =
        only(
            JSON.readTree(
                send("olga", get("/actuator/idempotency/abandoned?operation=refund")).body()),
            order);

    assertThat(send("olga", write("DELETE", call.get("id").asString())).statusCode())
        .isEqualTo(200);
    assertThat(send("olga", write("DELETE", call.get("id").asString())).statusCode())
        .isEqualTo(404);
    refunds.up();
    Thread.sleep(400);

    assertThat(resumables.runOnce().taken()).isZero();
    assertThat(refunds.made()).isZero();
  }

  @Test
  void anotherPathOrAnUnknownOperationFindsNothing() {
    assertThat(send("olga", get("/actuator/idempotency/stuck?operation=refund")).statusCode())
        .isEqualTo(404);
    assertThat(send("olga", write("POST", "nope")).statusCode()).isEqualTo(404);
    HttpResponse<String> none =
        send("olga", get("/actuator/idempotency/abandoned?operation=unknown"));
    assertThat(none.statusCode()).isEqualTo(200);
    assertThat(none.body()).isEqualTo("[]");
  }

  // A refund whose bank is down: the client's call fails, the completer's one run fails too, and
  // the call is abandoned (max-attempts 1).
  private String abandon(String method) throws InterruptedException {
    String order = "order-" + UUID.randomUUID();
    refunds.down();
    assertThatThrownBy(() -> refunds.refund(order, method)).hasMessageContaining("bank");
    Thread.sleep(400);
    assertThat(resumables.runOnce().abandoned()).isEqualTo(1);
    return order;
  }

  private static JsonNode only(JsonNode calls, String order) {
    for (JsonNode call : calls) {
      if (call.get("key").asString().equals(order)) {
        assertThat(call.has("input")).isFalse();
        return call;
      }
    }
    throw new AssertionError("no abandoned call of " + order + " in " + calls);
  }

  private HttpRequest.Builder get(String path) {
    return HttpRequest.newBuilder(uri(path)).GET();
  }

  // a retry's parameters go in its JSON body, a drop's in its query, as Actuator takes them
  private HttpRequest.Builder write(String method, String id) {
    if (method.equals("DELETE")) {
      return HttpRequest.newBuilder(
              uri("/actuator/idempotency/abandoned?operation=refund&id=" + id))
          .DELETE();
    }
    return HttpRequest.newBuilder(uri("/actuator/idempotency/abandoned"))
        .header("Content-Type", "application/json")
        .POST(
            HttpRequest.BodyPublishers.ofString(
                JSON.writeValueAsString(Map.of("operation", "refund", "id", id))));
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private HttpResponse<String> send(String user, HttpRequest.Builder request) {
    String secret = user + ":" + user + "-secret";
    request.header(
        "Authorization",
        "Basic " + Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8)));
    try {
      return CLIENT.send(
          request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Refunds through a bank that may be down; each refund made is counted. */
  static class Refunds {
    private final AtomicBoolean bankDown = new AtomicBoolean();
    private final AtomicInteger made = new AtomicInteger();

    @Idempotent(key = "#orderNo", operation = "refund", resumable = true, lease = "200ms")
    public String refund(String orderNo, String method) {
      if (bankDown.get()) {
        throw new IllegalStateException("the bank is down");
      }
      made.incrementAndGet();
      return "refunded " + orderNo;
    }

    public void down() {
      bankDown.set(true);
    }

    public void up() {
      bankDown.set(false);
    }

    public int made() {
      return made.get();
    }
  }
}
