package dev.idem.spring.web;

import static dev.idem.spring.web.HttpConformanceTests.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.testsupport.FaultInjectingStore;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * A store that is down gives 503 store-unavailable, and a store bean of one's own replaces Idem's.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(
    classes = {TestApplication.class, StoreDownTest.DownStore.class},
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StoreDownTest {

  @LocalServerPort int port;
  @Autowired TestController controller;

  @Test
  void aProtectedRequestGets503WhenTheStoreIsDownAndTheHandlerDoesNotRun(CapturedOutput output) {
    Http http = new Http(port);
    String run = UUID.randomUUID().toString();
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> refused =
          http.send(
              "POST", "/orders", HttpConformanceTests.ORDER, "X-Run", run, "Idempotency-Key", "k");
      assertProblem(refused, 503, "store-unavailable");
      assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(refused.body()).contains("so the request was not run");
    }
    assertThat(controller.runs(run)).as("handler runs").isZero();
    // the operator hears of it, once for the burst rather than once a request
    assertThat(output.getOut().lines().filter(l -> l.contains("store failed at claim"))).hasSize(1);
  }

  @Test
  void theTokenEndpointGets503WhenTheStoreIsDown() {
    assertProblem(new Http(port).send("POST", "/api/tokens", null), 503, "store-unavailable");
  }

  /**
   * Fails every call that would reach a server. What the store is (capabilities, transaction
   * joining, change notices) stays the interface's default, as for a real store that is down, so
   * that the engine gets as far as the claim.
   */
  @TestConfiguration
  static class DownStore {
    /** A real store with every call failing, as an unreachable server's would. */
    @Bean
    IdempotencyStore downStore() {
      FaultInjectingStore down = new FaultInjectingStore(new InMemoryIdempotencyStore());
      for (FaultInjectingStore.Operation op : FaultInjectingStore.Operation.values()) {
        down.failNext(op, Integer.MAX_VALUE);
      }
      return down;
    }
  }
}
