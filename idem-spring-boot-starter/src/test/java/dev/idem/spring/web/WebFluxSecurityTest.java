package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.RecordState;
import dev.idem.spring.Idempotent;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;

/**
 * The WebFlux filter behind a real Spring Security WebFlux chain (HTTP Basic, as an application
 * would set it up): each caller's keys live in the caller's own scope, taken from the security
 * context, and a request the chain refuses claims nothing.
 */
@SpringBootTest(
    classes = WebFluxSecurityTest.SecuredApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.main.web-application-type=reactive",
      // the other tests' applications run without Spring Security (application.properties)
      "spring.autoconfigure.exclude=org.springframework.boot.data.redis.autoconfigure"
          + ".DataRedisAutoConfiguration"
    })
class WebFluxSecurityTest {

  private static final String OPERATION = "POST /charges";

  @LocalServerPort int port;
  @Autowired IdempotencyStore store;
  @Autowired Charges charges;

  private Http http;
  private String key;

  @BeforeAll
  static void installBlockHound() {
    BlockHound.install();
  }

  @BeforeEach
  void setUp() {
    http = new Http(port);
    key = UUID.randomUUID().toString();
  }

  @Test
  void twoCallersSendingTheSameKeyEachRunOnceInTheirOwnScope() {
    HttpResponse<String> alice = charge("alice");
    HttpResponse<String> bob = charge("bob");
    HttpResponse<String> aliceAgain = charge("alice");

    assertThat(alice.statusCode()).isEqualTo(200);
    assertThat(alice.body()).startsWith("charge for alice ");
    assertThat(bob.statusCode()).isEqualTo(200);
    assertThat(bob.body()).startsWith("charge for bob ").isNotEqualTo(alice.body());
    assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(aliceAgain.body()).isEqualTo(alice.body());
    assertThat(aliceAgain.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(state("alice")).isEqualTo(RecordState.COMPLETED);
    assertThat(state("bob")).isEqualTo(RecordState.COMPLETED);
    assertThat(
            store.find(
                IdempotencyKey.of(IdempotencyKey.scope(OPERATION, "anonymous@127.0.0.1"), key)))
        .isEmpty();
  }

  @Test
  void aRequestTheChainRefusesClaimsNothingAndRunsNothing() {
    int before = charges.runs();

    HttpResponse<String> anonymous = http.send("POST", "/charges", "{}", "Idempotency-Key", key);
    HttpResponse<String> wrongPassword =
        http.send(
            "POST", "/charges", "{}", "Idempotency-Key", key, "Authorization", basic("bob:x"));

    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(wrongPassword.statusCode()).isEqualTo(401);
    assertThat(charges.runs()).isEqualTo(before);
    assertThat(
            store.find(
                IdempotencyKey.of(IdempotencyKey.scope(OPERATION, "anonymous@127.0.0.1"), key)))
        .isEmpty();
    assertThat(store.find(IdempotencyKey.of(IdempotencyKey.scope(OPERATION, "bob"), key)))
        .isEmpty();
  }

  @Test
  void aHandlerTheCallerMayNotRunIsRefusedWith403ByTheChainAndClaimsNothingForGood() {
    // the access refusal reaches Spring Security's translation, outside the filter: never a 500
    HttpResponse<String> refused =
        http.send(
            "POST", "/refunds", "{}", "Idempotency-Key", key, "Authorization", basic("bob:bob"));
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(charges.refunds()).isZero();
    assertThat(store.find(IdempotencyKey.of(IdempotencyKey.scope("POST /refunds", "bob"), key)))
        .isEmpty();
  }

  private HttpResponse<String> charge(String user) {
    return http.send(
        "POST",
        "/charges",
        "{}",
        "Idempotency-Key",
        key,
        "Authorization",
        basic(user + ":" + user));
  }

  private RecordState state(String user) {
    return store
        .find(IdempotencyKey.of(IdempotencyKey.scope(OPERATION, user), key))
        .orElseThrow()
        .state();
  }

  private static String basic(String credentials) {
    return "Basic "
        + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableWebFluxSecurity
  @org.springframework.security.config.annotation.method.configuration.EnableReactiveMethodSecurity
  @Import(Charges.class)
  static class SecuredApplication {

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.authorizeExchange(exchanges -> exchanges.anyExchange().authenticated())
          .httpBasic(basic -> {})
          .csrf(ServerHttpSecurity.CsrfSpec::disable)
          .build();
    }

    @Bean
    MapReactiveUserDetailsService users() {
      return new MapReactiveUserDetailsService(
          User.withUsername("alice").password("{noop}alice").roles("USER").build(),
          User.withUsername("bob").password("{noop}bob").roles("USER").build());
    }
  }

  @RestController
  static class Charges {
    private final AtomicInteger runs = new AtomicInteger();

    int runs() {
      return runs.get();
    }

    private final AtomicInteger refunds = new AtomicInteger();

    int refunds() {
      return refunds.get();
    }

    /** Only for administrators, whom no test user is. */
    @Idempotent
    @PostMapping("/refunds")
    @org.springframework.security.access.prepost.PreAuthorize("hasRole('ADMIN')")
    public Mono<String> refund() {
      return Mono.fromSupplier(() -> "refund " + refunds.incrementAndGet());
    }

    @Idempotent
    @PostMapping("/charges")
    Mono<String> charge(Mono<Principal> caller) {
      return caller.map(p -> "charge for " + p.getName() + " " + runs.incrementAndGet());
    }
  }
}
