package dev.idem.spring.web;

import static dev.idem.spring.web.HttpConformanceTests.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** With {@code idem.tokens.replay-used=false} a used token is refused with 409 token-used. */
@SpringBootTest(
    classes = TestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"idem.tokens.replay-used=false", "idem.http.token-path=/tokens"})
class UsedTokenTest {

  @LocalServerPort int port;

  @Test
  void aUsedTokenIsRefusedWhenRepeatsAreNotReplayed() {
    Http http = new Http(port);
    HttpResponse<String> issued = http.send("POST", "/tokens", null);
    assertThat(issued.statusCode()).isEqualTo(201);
    String token = issued.body().replaceAll(".*\"token\":\"([^\"]+)\".*", "$1");
    String order = HttpConformanceTests.ORDER;
    String[] headers = {"X-Run", "r", "X-Idempotent-Token", token};
    assertThat(http.send("POST", "/orders", order, headers).statusCode()).isEqualTo(201);
    assertProblem(http.send("POST", "/orders", order, headers), 409, "token-used");
  }
}
