package dev.idem.spring.web;

import static dev.idem.spring.web.HttpConformanceTests.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdempotencyStore;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.testsupport.FaultInjectingStore;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * A store that is down gives 503 store-unavailable, and a store bean of one's own replaces Idem's.
 */
@SpringBootTest(
    classes = {TestApplication.class, StoreDownTest.DownStore.class},
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StoreDownTest {

  @LocalServerPort int port;
  @Autowired TestController controller;

  @Test
  void aProtectedRequestGets503WhenTheStoreIsDownAndTheHandlerDoesNotRun() {
    Http http = new Http(port);
    String run = UUID.randomUUID().toString();
    assertProblem(
        http.send(
            "POST", "/orders", HttpConformanceTests.ORDER, "X-Run", run, "Idempotency-Key", "k"),
        503,
        "store-unavailable");
    assertThat(controller.runs(run)).as("handler runs").isZero();
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
