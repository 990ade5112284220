package dev.idem.spring.actuate;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.spring.Idempotent;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code idempotency} endpoint over real HTTP, secured as an application would secure it:
 * Spring Security with HTTP Basic, the endpoint open to the role IDEM_OPERATOR only. Records are
 * made and checked on the in-memory store directly; what the store does on every backend is the
 * contract suite's part ({@code EvictionContract}). Longer than 400 lines because every read and
 * write is checked through the same secured application, which one class starts once.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = IdempotencyEndpointTest.OperatorApplication.class,
    properties = {
      "management.endpoints.web.exposure.include=health,idempotency",
      "management.endpoint.idempotency.access=unrestricted",
      // the other tests' applications run without Spring Security (application.properties)
      "spring.autoconfigure.exclude="
    })
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyEndpointTest {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String SCOPE = IdempotencyKey.scope("POST /orders", "alice");
  private static final Fingerprint REQUEST = Fingerprint.of("POST /orders", "{\"amount\":1000}");
  private static final String OPERATOR = "olga";
  private static final String VIEWER = "victor";

  @LocalServerPort int port;

  @Autowired IdempotencyStore store;
  @Autowired Checkout checkout;
  @Autowired Charges charges;

  @Test
  void anAnonymousCallerIsAskedToAuthenticateAndChangesNothing() {
    IdempotencyKey key = newKey();
    Lease lease = claim(key);

    assertThat(send(null, read(key)).statusCode()).isEqualTo(401);
    assertThat(send(null, release(key, null)).statusCode()).isEqualTo(401);
    complete(lease, "receipt");
    assertThat(send(null, evict(key, null)).statusCode()).isEqualTo(401);

    assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @Test
  void aUserWithoutTheOperatorRoleIsForbiddenAndChangesNothing(CapturedOutput output) {
    IdempotencyKey key = newKey();
    Lease lease = claim(key);

    assertThat(send(VIEWER, read(key)).statusCode()).isEqualTo(403);
    assertThat(send(VIEWER, release(key, null)).statusCode()).isEqualTo(403);
    assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    complete(lease, "receipt");
    assertThat(send(VIEWER, evict(key, null)).statusCode()).isEqualTo(403);

    assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    assertThat(output.getOut()).doesNotContain("'" + VIEWER + "'");
  }

  @Test
  void anOperatorReadsACompletedRecordButNeverItsStoredBody() {
    IdempotencyKey key = newKey();
    String body = "{\"card\":\"4242 4242 4242 4242\",\"holder\":\"alice\"}";
    complete(claim(key), body);
    IdempotencyRecord stored = store.find(key).orElseThrow();

    HttpResponse<String> answer = send(OPERATOR, read(key));

    assertThat(answer.statusCode()).isEqualTo(200);
    JsonNode record = JSON.readTree(answer.body());
    assertThat(record.get("scope").asString()).isEqualTo(SCOPE);
    assertThat(record.get("key").asString()).isEqualTo(key.value());
    assertThat(record.get("state").asString()).isEqualTo("COMPLETED");
    assertThat(record.get("fence").asLong()).isEqualTo(stored.fence());
    assertThat(Instant.parse(record.get("expiresAt").asString())).isEqualTo(stored.expiresAt());
    assertThat(record.get("fingerprint").asString()).isEqualTo(REQUEST.value());
    assertThat(record.get("outcome").asString()).isEqualTo("SUCCESS");
    assertThat(record.get("storedBytes").asInt()).isEqualTo(bytes(body).length);
    assertThat(answer.body())
        .doesNotContain("4242")
        .doesNotContain("holder")
        .doesNotContain(Base64.getEncoder().encodeToString(bytes(body)).substring(0, 16));
  }

  @Test
  void anOperatorReadsAnInProgressRecordWithItsLeaseEnd() {
    IdempotencyKey key = newKey();
    Lease lease = claim(key);

    JsonNode record = JSON.readTree(send(OPERATOR, read(key)).body());

    assertThat(record.get("state").asString()).isEqualTo("IN_PROGRESS");
    assertThat(record.get("fence").asLong()).isEqualTo(lease.fence());
    assertThat(Instant.parse(record.get("leaseUntil").asString())).isEqualTo(lease.until());
  }

  @Test
  void aKeyWithoutARecordIsNotFoundAndAnImpossibleOneIsABadRequest() {
    IdempotencyKey unknown = newKey();
    assertThat(send(OPERATOR, read(unknown)).statusCode()).isEqualTo(404);
    assertThat(send(OPERATOR, release(unknown, null)).statusCode()).isEqualTo(404);
    assertThat(send(OPERATOR, evict(unknown, null)).statusCode()).isEqualTo(404);

    String spaced = "/actuator/idempotency?scope=" + encode(SCOPE) + "&key=" + encode("a b");
    assertThat(send(OPERATOR, get(spaced)).statusCode()).isEqualTo(400);
    String keyless = "/actuator/idempotency?scope=" + encode(SCOPE);
    assertThat(send(OPERATOR, get(keyless)).statusCode()).isEqualTo(400);
  }

  @Test
  void anOperatorReleasesAStuckKeyAndTheNextClaimRunsTheWorkAgain(CapturedOutput output) {
    IdempotencyKey key = newKey();
    Lease stuck = claim(key);
    assertThat(now(store.claim(ClaimRequest.of(key, REQUEST, Duration.ofMinutes(5)))))
        .as("a duplicate before the release")
        .isInstanceOf(ClaimResult.InProgress.class);

    HttpResponse<String> answer = send(OPERATOR, release(key, stuck.fence()));

    assertThat(answer.statusCode()).isEqualTo(200);
    JsonNode done = JSON.readTree(answer.body());
    assertThat(done.get("done").asBoolean()).isTrue();
    assertThat(done.get("record").get("state").asString()).isEqualTo("IN_PROGRESS");
    assertThat(store.find(key)).isEmpty();
    ClaimResult retry = now(store.claim(ClaimRequest.of(key, REQUEST, Duration.ofMinutes(5))));
    assertThat(retry).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(((ClaimResult.Claimed) retry).lease().fence()).isGreaterThan(stuck.fence());
    assertThat(now(store.complete(stuck, Outcome.success(bytes("late")), Duration.ofHours(1))))
        .as("the stuck owner's late completion")
        .isFalse();
    assertThat(
            logLine(
                output,
                "'"
                    + OPERATOR
                    + "' released the IN_PROGRESS record of key '"
                    + key.value()
                    + "' in scope '"
                    + SCOPE
                    + "' (fence "
                    + stuck.fence()
                    + ")"))
        .contains(" WARN ");
  }

  @Test
  void anOperatorEvictsACompletedKeyAndTheNextClaimRunsTheWorkAgain(CapturedOutput output) {
    IdempotencyKey key = newKey();
    Lease lease = claim(key);
    complete(lease, "a receipt that must not be replayed");

    HttpResponse<String> answer = send(OPERATOR, evict(key, lease.fence()));

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(answer.body()).get("done").asBoolean()).isTrue();
    assertThat(store.find(key)).isEmpty();
    assertThat(now(store.claim(ClaimRequest.of(key, REQUEST, Duration.ofMinutes(5)))))
        .isInstanceOf(ClaimResult.Claimed.class);
    assertThat(
            logLine(
                output,
                "'"
                    + OPERATOR
                    + "' evicted the COMPLETED record of key '"
                    + key.value()
                    + "' in scope '"
                    + SCOPE
                    + "' (fence "
                    + lease.fence()
                    + ")"))
        .contains(" WARN ");
  }

  @Test
  void aWriteForAnotherStateOrAnOlderFenceIsRefusedAndLogged(CapturedOutput output) {
    IdempotencyKey running = newKey();
    Lease lease = claim(running);
    IdempotencyKey done = newKey();
    complete(claim(done), "receipt");

    HttpResponse<String> evictRunning = send(OPERATOR, evict(running, null));
    HttpResponse<String> releaseDone = send(OPERATOR, release(done, null));
    HttpResponse<String> staleFence = send(OPERATOR, release(running, lease.fence() - 1));

    assertThat(evictRunning.statusCode()).isEqualTo(409);
    assertThat(releaseDone.statusCode()).isEqualTo(409);
    assertThat(staleFence.statusCode()).isEqualTo(409);
    JsonNode refused = JSON.readTree(releaseDone.body());
    assertThat(refused.get("done").asBoolean()).isFalse();
    assertThat(refused.get("message").asString())
        .isEqualTo("the record is COMPLETED, not IN_PROGRESS: nothing was released");
    assertThat(JSON.readTree(staleFence.body()).get("message").asString())
        .contains("fence is " + lease.fence());
    assertThat(store.find(running).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(store.find(done).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    assertThat(logLine(output, "'" + OPERATOR + "' asked to evict key '" + running.value()))
        .contains(" INFO ")
        .endsWith("nothing was evicted");
    assertThat(logLine(output, "'" + OPERATOR + "' asked to release key '" + done.value()))
        .contains(" INFO ")
        .endsWith("nothing was released");
  }

  private static String logLine(CapturedOutput output, String fragment) {
    return output
        .getOut()
        .lines()
        .filter(line -> line.contains(fragment))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no log line with " + fragment));
  }

  @Test
  void anOperatorReadsTheStepsOfTheRequestTheRecordHoldsNeverAnEarlierRequestsSteps() {
    String order = "order-" + UUID.randomUUID();
    // A first request charges once and fails: its key is released, its step kept.
    assertThatThrownBy(() -> checkout.pay(order, 1, true))
        .isInstanceOf(IllegalStateException.class);
    // Another request under the key (another payload) charges twice and succeeds.
    checkout.pay(order, 2, false);
    IdempotencyKey key = IdempotencyKey.of(Checkout.OPERATION, order);

    HttpResponse<String> answer = send(OPERATOR, read(key));

    assertThat(answer.statusCode()).isEqualTo(200);
    JsonNode steps = JSON.readTree(answer.body()).get("steps");
    assertThat(steps).hasSize(2);
    assertThat(steps.get(0).get("name").asString()).isEqualTo("Charges.charge");
    assertThat(steps.get(1).get("name").asString()).isEqualTo("Charges.charge#2");
    for (JsonNode step : steps) {
      assertThat(step.get("state").asString()).isEqualTo("COMPLETED");
      assertThat(step.get("outcome").asString()).isEqualTo("SUCCESS");
      assertThat(step.get("storedBytes").asInt()).isPositive();
      assertThat(step.has("payload")).isFalse();
    }
    assertThat(charges.calls()).containsExactly(order + ":1", order + ":2", order + ":3");
  }

  @Test
  void aKeyWhoseWorkMadeNoStepShowsNone() {
    IdempotencyKey key = newKey();
    complete(claim(key), "receipt");

    JsonNode record = JSON.readTree(send(OPERATOR, read(key)).body());

    assertThat(record.get("steps")).isEmpty();
  }

  private IdempotencyKey newKey() {
    // a slash, a query's and a fragment's characters and a percent sign: all must round-trip
    return IdempotencyKey.of(SCOPE, "k/" + UUID.randomUUID() + "?a=1&b=%2F+c#d");
  }

  private Lease claim(IdempotencyKey key) {
    ClaimResult result = now(store.claim(ClaimRequest.of(key, REQUEST, Duration.ofMinutes(5))));
    assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
    return ((ClaimResult.Claimed) result).lease();
  }

  private void complete(Lease lease, String body) {
    assertThat(now(store.complete(lease, Outcome.success(bytes(body)), Duration.ofHours(1))))
        .isTrue();
  }

  private HttpRequest.Builder read(IdempotencyKey key) {
    return get(query(key, null));
  }

  private HttpRequest.Builder get(String path) {
    return HttpRequest.newBuilder(uri(path)).GET();
  }

  private HttpRequest.Builder release(IdempotencyKey key, Long fence) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("scope", key.scope());
    body.put("key", key.value());
    if (fence != null) {
      body.put("fence", fence);
    }
    return HttpRequest.newBuilder(uri("/actuator/idempotency"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
  }

  private HttpRequest.Builder evict(IdempotencyKey key, Long fence) {
    return HttpRequest.newBuilder(uri(query(key, fence))).DELETE();
  }

  private static String query(IdempotencyKey key, Long fence) {
    return "/actuator/idempotency?scope="
        + encode(key.scope())
        + "&key="
        + encode(key.value())
        + (fence == null ? "" : "&fence=" + fence);
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private HttpResponse<String> send(String user, HttpRequest.Builder request) {
    if (user != null) {
      String secret = user + ":" + user + "-secret";
      request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(bytes(secret)));
    }
    try {
      return CLIENT.send(
          request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * An application with the endpoint exposed, the in-memory store, and the Actuator endpoints
   * behind HTTP Basic: {@code olga} is an operator, {@code victor} only a user. CSRF protection is
   * off for the endpoints, whose callers are scripts, not browsers.
   */
  @SpringBootConfiguration
  @EnableAutoConfiguration(
      excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
  static class OperatorApplication {

    @Bean
    Charges charges() {
      return new Charges();
    }

    @Bean
    Checkout checkout(Charges charges) {
      return new Checkout(charges);
    }

    @Bean
    IdempotencyStore store() {
      return new InMemoryIdempotencyStore();
    }

    @Bean
    SecurityFilterChain actuator(HttpSecurity http) throws Exception {
      return http.securityMatcher(EndpointRequest.toAnyEndpoint())
          .authorizeHttpRequests(
              requests ->
                  requests
                      .requestMatchers(EndpointRequest.to(IdempotencyEndpoint.class))
                      .hasRole("IDEM_OPERATOR")
                      .requestMatchers(EndpointRequest.to("health"))
                      .permitAll()
                      .anyRequest()
                      .authenticated())
          .httpBasic(Customizer.withDefaults())
          .csrf(csrf -> csrf.disable())
          .build();
    }

    @Bean
    UserDetailsService users() {
      return new InMemoryUserDetailsManager(
          User.withUsername(OPERATOR)
              .password("{noop}" + OPERATOR + "-secret")
              .roles("IDEM_OPERATOR")
              .build(),
          User.withUsername(VIEWER).password("{noop}" + VIEWER + "-secret").roles("USER").build());
    }
  }

  /** A step method: {@code @Idempotent} without a key. */
  static class Charges {
    private final List<String> calls = new CopyOnWriteArrayList<>();

    @Idempotent
    public String charge(String order, int amount) {
      calls.add(order + ":" + amount);
      return "charged " + order + " " + amount;
    }

    List<String> calls() {
      return calls;
    }
  }

  /** A keyed method whose work makes steps: one charge then a failure, or two charges. */
  static class Checkout {
    static final String OPERATION = "checkout";
    private final Charges charges;

    Checkout(Charges charges) {
      this.charges = charges;
    }

    @Idempotent(operation = OPERATION, key = "#order")
    public String pay(String order, int amount, boolean failAfterFirst) {
      String first = charges.charge(order, amount);
      if (failAfterFirst) {
        throw new IllegalStateException("failed after the first charge");
      }
      return first + ", " + charges.charge(order, amount + 1);
    }
  }
}
