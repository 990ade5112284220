package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import reactor.blockhound.BlockHound;

/**
 * The HTTP conformance suite on Spring WebFlux, with BlockHound installed: a request that blocks an
 * event-loop thread anywhere (Idem, the store's client, the handlers) fails with a 500 and so fails
 * its row. Its own rows: BlockHound at work, and bodies a handler reads in its own pipeline.
 */
@SpringBootTest(
    classes = WebFluxTestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "spring.main.web-application-type=reactive")
abstract class WebFluxConformanceTests extends HttpConformanceTests {

  @BeforeAll
  static void installBlockHound() {
    BlockHound.install();
  }

  @Test
  void blockHoundRefusesABlockingCallOnTheEventLoop() {
    assertThat(post("/blocking", null).statusCode()).isEqualTo(500);
  }

  @Test
  void aBodyTheHandlerRefusesInItsOwnPipelineAfterItsWorkKeepsTheKey() {
    // the handler charged before it read its body: the refusal is its answer, never a reason to
    // charge again for the corrected body under the same key
    HttpResponse<String> malformed =
        post("/charge-then-read", "{\"item\":", "Idempotency-Key", key);
    HttpResponse<String> fixed = post("/charge-then-read", ORDER, "Idempotency-Key", key);
    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(fixed.statusCode()).isIn(400, 422);
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void aFunctionalRouteThatRefusesItsBodyAfterItsWorkKeepsTheKey() {
    // a handler function reads its body itself, after it may have charged: its refusal is its
    // answer, as for a handler method that reads its body in its own pipeline
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> answer =
          post("/by-path/charge-then-read", "{\"item\":", "Idempotency-Key", key);
      assertThat(answer.statusCode()).as("attempt %d", i).isEqualTo(400);
    }
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  // Waiters hold no thread here, and their claims are made on the store's threads, so claims are
  // counted; with more waiters than store threads (idem.async.threads, 16), every one has claimed
  // when there are as many claims as requests.
  @Override
  boolean allClaimed(String keyValue, int requests) {
    return controller.claims(keyValue) >= requests;
  }
}
