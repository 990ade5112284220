package dev.idem.spring.web;

import static dev.idem.spring.web.HttpConformanceTests.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.ClaimRequest;
import dev.idem.core.ClaimResult;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.IdempotencyStore;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.Lease;
import dev.idem.core.Outcome;
import java.time.Duration;
import java.util.Optional;
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
    @Bean
    IdempotencyStore downStore() {
      return new IdempotencyStore() {
        @Override
        public ClaimResult claim(ClaimRequest request) {
          throw down();
        }

        @Override
        public boolean complete(Lease lease, Outcome outcome, Duration retention) {
          throw down();
        }

        @Override
        public boolean release(Lease lease) {
          throw down();
        }

        @Override
        public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
          throw down();
        }

        @Override
        public Optional<IdempotencyRecord> find(IdempotencyKey key) {
          throw down();
        }

        @Override
        public boolean issue(IdempotencyKey key, Duration ttl) {
          throw down();
        }

        @Override
        public int purgeExpired(int limit) {
          throw down();
        }

        @Override
        public String toString() {
          return "down";
        }

        private IdempotencyStoreException down() {
          return new IdempotencyStoreException("connection refused");
        }
      };
    }
  }
}
