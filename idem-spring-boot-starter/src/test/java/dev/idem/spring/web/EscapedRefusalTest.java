package dev.idem.spring.web;

import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * With {@code idem.http.problem-answers=false} no exception handler answers an Idem refusal that a
 * bean method raised inside a guarded request: the filter does, on both stacks, with the neutral
 * problem an escaped refusal gets, never the exception's own message, which names the application's
 * expressions, classes and methods.
 */
class EscapedRefusalTest {

  static void refusedNeutrally(int port) {
    HttpResponse<String> missing =
        new Http(port)
            .send(
                "POST",
                "/by-path/refund-fn?cents=5",
                null,
                "Idempotency-Key",
                UUID.randomUUID().toString());
    HttpConformanceTests.assertNeutralMissingKey(missing);
  }

  @Nested
  @SpringBootTest(
      classes = TestApplication.class,
      webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
      properties = {"idem.http.problem-answers=false", "idem.http.paths=/by-path/**"})
  class OnSpringMvc {
    @LocalServerPort int port;

    @Test
    void aRefusalEscapingTheHandlerGetsANeutralProblem() {
      refusedNeutrally(port);
    }
  }

  @Nested
  @SpringBootTest(
      classes = WebFluxTestApplication.class,
      webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
      properties = {
        "spring.main.web-application-type=reactive",
        "idem.http.problem-answers=false",
        "idem.http.paths=/by-path/**"
      })
  class OnWebFlux {
    @LocalServerPort int port;

    @Test
    void aRefusalEscapingTheHandlerGetsANeutralProblem() {
      refusedNeutrally(port);
    }
  }
}
