package dev.idem.chaos;

import dev.idem.spring.client.IdempotentRetries;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.springframework.http.MediaType;
import org.springframework.http.client.BufferingClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

/**
 * Sends the tool's requests the way a careful client behind a load balancer would: by the rules of
 * Idem's own client ({@link IdempotentRetries}: the call's key kept across its retries; an I/O
 * failure, a 5xx, 429 and a 409 with Retry-After retried as {@code Retry-After} says or with
 * jittered backoff, within {@link #MAX_ATTEMPTS} attempts and {@link #GIVE_UP}; other 4xx answered
 * at once), each attempt going to an instance that is up (on no answer, the next one). Every
 * attempt and its latency go to the {@link Ledger} and the {@link Timeline} ({@link Attempts});
 * only a completed answer comes back.
 */
final class Sender {

  /** Attempts of one operation, the first included. */
  static final int MAX_ATTEMPTS = 10;

  /** How long one operation may keep retrying before it is given up. */
  static final Duration GIVE_UP = Duration.ofSeconds(45);

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  private final List<URI> endpoints;
  private final Ledger ledger;
  private final long startNanos;
  private final RestClient client;

  Sender(List<URI> endpoints, Ledger ledger, Timeline timeline, long startNanos) {
    this(endpoints, ledger, timeline, startNanos, retries().build());
  }

  Sender(
      List<URI> endpoints,
      Ledger ledger,
      Timeline timeline,
      long startNanos,
      IdempotentRetries retries) {
    this.endpoints = List.copyOf(endpoints);
    this.ledger = ledger;
    this.startNanos = startNanos;
    JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(http);
    requests.setReadTimeout(Duration.ofSeconds(20));
    this.client =
        RestClient.builder()
            .requestFactory(new BufferingClientHttpRequestFactory(requests))
            .requestInterceptor(retries)
            .requestInterceptor(new Attempts(endpoints, ledger, timeline, this::now))
            .build();
  }

  /** The tool's budget on Idem's rules: {@link #MAX_ATTEMPTS} within {@link #GIVE_UP}. */
  static IdempotentRetries.Builder retries() {
    return IdempotentRetries.builder().maxAttempts(MAX_ATTEMPTS).timeout(GIVE_UP);
  }

  /** Milliseconds since the start of the load. */
  long now() {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  /**
   * Sends a keyed POST until it completes, and records the completed answer under the key.
   *
   * @return the completed answer, or empty when the operation was given up
   */
  Optional<Answer> keyed(
      Operation operation, String user, String key, String path, String body, int instance)
      throws InterruptedException {
    Optional<Answer> answer = retrying(operation, user, key, path, body, instance, null);
    answer.ifPresentOrElse(a -> ledger.completed(user, key, a), ledger::abandoned);
    return answer;
  }

  /** Sends the gateway's callback with {@code secret}, retried like the rest. */
  Optional<Answer> callback(String paymentNo, String status, String secret, int instance)
      throws InterruptedException {
    String body = "{\"paymentNo\":\"" + paymentNo + "\",\"status\":\"" + status + "\"}";
    Optional<Answer> answer =
        retrying(Operation.CALLBACK, null, null, "/api/payments/notify", body, instance, secret);
    answer.ifPresentOrElse(a -> ledger.callback(paymentNo, a), ledger::abandoned);
    return answer;
  }

  private Optional<Answer> retrying(
      Operation operation,
      String user,
      String key,
      String path,
      String body,
      int instance,
      String secret)
      throws InterruptedException {
    int home = Math.floorMod(instance, endpoints.size());
    Attempts.Call call = new Attempts.Call(operation, home);
    boolean answered = true;
    try {
      client
          .post()
          .uri(endpoints.get(home).resolve(path)) // each attempt's instance is Attempts' choice
          .attribute(Attempts.CALL, call)
          .contentType(MediaType.APPLICATION_JSON)
          .headers(
              h -> {
                if (user != null) {
                  h.set("Authorization", basic(user, user));
                }
                if (key != null) {
                  h.set(IdempotentRetries.HEADER, key);
                }
                if (secret != null) {
                  h.set("X-Gateway-Secret", secret);
                }
              })
          .body(body)
          .exchange((request, response) -> response.getStatusCode(), true);
    } catch (RestClientException e) {
      answered = false; // no answer until the budget ran out
    }
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted while waiting to retry");
    }
    if (!answered) {
      return Optional.empty();
    }
    Answer last = call.last();
    // The budget ran out on an answer that asked for a retry: given up, not completed.
    if (last == null || last.status() >= 500 || last.status() == 429 || Attempts.inProgress(last)) {
      return Optional.empty();
    }
    return Optional.of(last);
  }

  /** A GET as {@code user} on {@code instance}: status and body, or empty on no answer. */
  Optional<Answer> get(String path, String user, String password, int instance)
      throws InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(
                endpoints.get(Math.floorMod(instance, endpoints.size())).resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", basic(user, password))
            .GET()
            .build();
    long start = now();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return Optional.of(new Answer(response.statusCode(), response.body(), start, now()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  int instances() {
    return endpoints.size();
  }

  static String basic(String user, String password) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }
}
