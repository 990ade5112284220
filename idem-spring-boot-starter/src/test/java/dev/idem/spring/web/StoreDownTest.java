package dev.idem.spring.web;

import static dev.idem.spring.web.HttpConformanceTests.assertProblem;

import dev.idem.core.IdempotencyStore;
import dev.idem.core.IdempotencyStoreException;
import java.lang.reflect.Proxy;
import java.util.Set;
import org.junit.jupiter.api.Test;
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

  @Test
  void aProtectedRequestGets503WhenTheStoreIsDown() {
    Http http = new Http(port);
    assertProblem(
        http.send(
            "POST", "/orders", HttpConformanceTests.ORDER, "X-Run", "r", "Idempotency-Key", "k"),
        503,
        "store-unavailable");
  }

  @Test
  void theTokenEndpointGets503WhenTheStoreIsDown() {
    assertProblem(new Http(port).send("POST", "/api/tokens", null), 503, "store-unavailable");
  }

  @TestConfiguration
  static class DownStore {
    @Bean
    IdempotencyStore downStore() {
      return (IdempotencyStore)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {IdempotencyStore.class},
              (proxy, method, args) -> {
                if (method.getDeclaringClass() == Object.class) {
                  return method.getName().equals("toString") ? "down" : null;
                }
                if (method.getName().equals("capabilities")) {
                  return Set.of();
                }
                throw new IdempotencyStoreException("connection refused");
              });
    }
  }
}
