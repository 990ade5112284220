package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdempotencyConfig;
import dev.idem.spring.web.internal.Route;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which answers a guarded route passes on unstored, freeing its key. */
class RouteTest {

  private final Route route =
      new Route("orders", "/orders", true, IdempotencyConfig.ofDefaults(), Set.of(), Set.of(423));

  @Test
  void serverErrorsAndThePolicysStatusesAreNotStored() {
    assertThat(route.isRetryable(500, null)).isTrue();
    assertThat(route.isRetryable(503, "1")).isTrue();
    assertThat(route.isRetryable(423, null)).isTrue();
  }

  @Test
  void aClientErrorThatAsksForARetryIsNotStoredAndOneThatDoesNotIs() {
    assertThat(route.isRetryable(409, "2")).isTrue();
    assertThat(route.isRetryable(429, "60")).isTrue();
    assertThat(route.isRetryable(409, null)).isFalse();
    assertThat(route.isRetryable(422, null)).isFalse();
  }

  @Test
  void aSuccessWithRetryAfterIsStored() {
    // 202 Accepted with Retry-After says when to poll: the operation was accepted
    assertThat(route.isRetryable(202, "5")).isFalse();
    assertThat(route.isRetryable(201, null)).isFalse();
  }
}
