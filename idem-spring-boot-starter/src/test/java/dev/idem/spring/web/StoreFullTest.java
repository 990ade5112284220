package dev.idem.spring.web;

import static dev.idem.spring.web.HttpConformanceTests.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * One caller cannot fill the store for everyone: past its cap of live records a caller gets 429
 * store-full (never 503, never a run without deduplication), while other callers go on.
 */
@SpringBootTest(
    classes = TestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "idem.store=memory",
      "idem.http.max-records-per-caller=2",
      "idem.tokens.max-per-caller=2",
      "idem.defaults.fail-open=true"
    })
class StoreFullTest {

  @LocalServerPort int port;
  @Autowired TestController controller;

  @Test
  void aCallerAskingForTokensInALoopIsRefusedWith429WhileAnotherCallerGetsOne() {
    Http http = new Http(port);
    String mallory = "mallory-" + UUID.randomUUID();
    for (int i = 0; i < 2; i++) {
      assertThat(http.send("POST", "/api/tokens", null, "X-User", mallory).statusCode())
          .isEqualTo(201);
    }
    HttpResponse<String> refused = http.send("POST", "/api/tokens", null, "X-User", mallory);
    assertProblem(refused, 429, "store-full");
    assertThat(refused.headers().firstValue("Retry-After")).isPresent();
    assertThat(
            http.send("POST", "/api/tokens", null, "X-User", "alice-" + UUID.randomUUID())
                .statusCode())
        .isEqualTo(201);
  }

  @Test
  void aFullCallerIsNeverRunUnguardedEvenWithFailOpen() {
    Http http = new Http(port);
    String run = UUID.randomUUID().toString();
    String user = "flooder-" + UUID.randomUUID();
    for (int i = 0; i < 2; i++) {
      order(http, run, user, "k" + i);
    }
    assertProblem(order(http, run, user, "k2"), 429, "store-full");
    assertThat(controller.runs(run)).isEqualTo(2);
    HttpResponse<String> repeat = order(http, run, user, "k0");
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(controller.runs(run)).isEqualTo(2);
  }

  private static HttpResponse<String> order(Http http, String run, String user, String key) {
    return http.send(
        "POST",
        "/orders",
        HttpConformanceTests.ORDER,
        "X-Run",
        run,
        "X-User",
        user,
        "Idempotency-Key",
        key);
  }
}
