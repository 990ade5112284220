package dev.idem.spring.actuate;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The endpoint's writes are closed unless the application opens them: exposed and secured as the
 * operators' application of {@link IdempotencyEndpointTest} is, but without {@code
 * management.endpoint.idempotency.access}, an operator can read a record and neither release nor
 * evict it, since either would make the next retry run the work again.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = IdempotencyEndpointTest.OperatorApplication.class,
    properties = {
      "management.endpoints.web.exposure.include=health,idempotency",
      "spring.autoconfigure.exclude="
    })
class IdempotencyEndpointAccessTest {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @LocalServerPort int port;
  @Autowired IdempotencyStore store;

  @Test
  void anOperatorReadsButCanNeitherReleaseNorEvictByDefault() throws Exception {
    IdempotencyKey running = IdempotencyKey.of("POST /orders|alice", UUID.randomUUID().toString());
    claim(running);
    IdempotencyKey done = IdempotencyKey.of("POST /orders|alice", UUID.randomUUID().toString());
    now(store.complete(claim(done), Outcome.success(new byte[] {'r'}), Duration.ofHours(1)));

    assertThat(send(HttpRequest.newBuilder(uri(done)).GET()).statusCode()).isEqualTo(200);
    HttpResponse<String> release =
        send(
            HttpRequest.newBuilder(uri(null))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"scope\":\""
                            + running.scope()
                            + "\",\"key\":\""
                            + running.value()
                            + "\"}")));
    HttpResponse<String> evict = send(HttpRequest.newBuilder(uri(done)).DELETE());

    assertThat(release.statusCode()).isBetween(400, 499);
    assertThat(evict.statusCode()).isBetween(400, 499);
    assertThat(store.find(running).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(store.find(done).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  private Lease claim(IdempotencyKey key) {
    ClaimResult result =
        now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofMinutes(5))));
    return ((ClaimResult.Claimed) result).lease();
  }

  private URI uri(IdempotencyKey key) {
    String query =
        key == null
            ? ""
            : "?scope="
                + URLEncoder.encode(key.scope(), StandardCharsets.UTF_8)
                + "&key="
                + URLEncoder.encode(key.value(), StandardCharsets.UTF_8);
    return URI.create("http://127.0.0.1:" + port + "/actuator/idempotency" + query);
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    String operator = Base64.getEncoder().encodeToString("olga:olga-secret".getBytes());
    return CLIENT.send(
        request
            .header("Authorization", "Basic " + operator)
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
