package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The HTTP conformance suite on Spring MVC, with the rows only a servlet stack has: the key in the
 * logging MDC and an asynchronous answer hidden by its declared type.
 */
@SpringBootTest(
    classes = TestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class ServletConformanceTests extends HttpConformanceTests {

  @Test
  void theKeyIsInTheMdcWhileTheHandlerRuns() {
    HttpResponse<String> answer = post("/mdc", null, "Idempotency-Key", key);
    assertThat(answer.body()).isEqualTo("POST /mdc|anonymous@127.0.0.1/" + key);
  }

  @Test
  void anAsynchronousAnswerHiddenBehindItsDeclaredTypeIsSentWholeAndNeverStoredEmpty() {
    // the handler is declared Object, so the start-up check cannot see its DeferredResult
    HttpResponse<String> first = post("/deferred", null, "Idempotency-Key", key);
    // the key is freed on the request's thread, while the answer is sent from another: a repeat
    // that comes first finds the key in progress (409) and runs nothing
    HttpResponse<String> again =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> post("/deferred", null, "Idempotency-Key", key), r -> r.statusCode() != 409);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.headers().firstValue("Location")).hasValue("/deferred/1");
    assertThat(first.body()).isEqualTo("deferred #1");
    assertThat(again.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(again.body()).isEqualTo("deferred #2");
  }

  // A request that waits keeps its thread: while none has finished, the threads that claimed are
  // the requests. Counting claims would not do: a waiter that claims again could make up for a
  // request not yet arrived.
  @Override
  boolean allClaimed(String keyValue, int requests) {
    return controller.claimers(keyValue) >= requests;
  }
}
