package dev.idem.chaos;

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

/**
 * Sends the tool's requests the way a careful client behind a load balancer would: on no answer
 * (connection refused, cut or timed out) it tries the next instance; on a 409 {@code in-progress}
 * it waits a little and asks again; on a 5xx, the 504 {@code gateway-timeout} and the 503 {@code
 * wallet-busy} included, it retries with the same key (the shop stores no 5xx, so the key is still
 * free). Every attempt and its latency go to the {@link Ledger} and the {@link Timeline}; only a
 * completed answer comes back.
 */
final class Sender {

  /** How long one operation may keep retrying before it is given up. */
  private static final long GIVE_UP_NANOS = Duration.ofSeconds(45).toNanos();

  private static final int MAX_SERVER_ERRORS = 4;

  /** How long an instance that gave no answer is passed over. */
  private static final long DOWN_NANOS = Duration.ofSeconds(1).toNanos();

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  private final List<URI> endpoints;
  private final Ledger ledger;
  private final Timeline timeline;
  private final long startNanos;
  private final long[] downUntil;

  Sender(List<URI> endpoints, Ledger ledger, Timeline timeline, long startNanos) {
    this.endpoints = List.copyOf(endpoints);
    this.ledger = ledger;
    this.timeline = timeline;
    this.startNanos = startNanos;
    this.downUntil = new long[endpoints.size()];
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
    long began = System.nanoTime();
    int target = up(Math.floorMod(instance, endpoints.size()));
    int serverErrors = 0;
    while (System.nanoTime() - began < GIVE_UP_NANOS) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(endpoints.get(target).resolve(path))
              .timeout(Duration.ofSeconds(20))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body));
      if (user != null) {
        request.header("Authorization", basic(user, user));
      }
      if (key != null) {
        request.header("Idempotency-Key", key);
      }
      if (secret != null) {
        request.header("X-Gateway-Secret", secret);
      }
      long start = now();
      long t0 = System.nanoTime();
      ledger.request();
      HttpResponse<String> response;
      try {
        response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        timeline.record(now(), (System.nanoTime() - t0) / 1000);
        ledger.connectionError();
        markDown(target);
        target = up((target + 1) % endpoints.size());
        Thread.sleep(100);
        continue;
      }
      timeline.record(now(), (System.nanoTime() - t0) / 1000);
      Answer answer = new Answer(response.statusCode(), response.body(), start, now());
      if (answer.status() == 409 && answer.body().contains("urn:idem:problem:in-progress")) {
        ledger.inProgress();
        Thread.sleep(200);
        continue;
      }
      if (answer.status() == 504 && answer.body().contains("gateway-timeout")) {
        ledger.gatewayTimeout();
        continue;
      }
      if (answer.status() == 503 && answer.body().contains("wallet-busy")) {
        ledger.walletBusy();
        Thread.sleep(1000); // its Retry-After
        continue;
      }
      if (answer.status() >= 500) {
        ledger.serverError(operation, answer);
        if (++serverErrors >= MAX_SERVER_ERRORS) {
          return Optional.empty();
        }
        Thread.sleep(250L * serverErrors);
        continue;
      }
      return Optional.of(answer);
    }
    return Optional.empty();
  }

  /**
   * The first instance from {@code preferred} on that has not failed to answer in the last second,
   * like a load balancer taking a dead backend out for a while; {@code preferred} if all have.
   */
  private int up(int preferred) {
    long now = System.nanoTime();
    synchronized (downUntil) {
      for (int i = 0; i < downUntil.length; i++) {
        int candidate = (preferred + i) % downUntil.length;
        if (downUntil[candidate] - now <= 0) {
          return candidate;
        }
      }
    }
    return preferred;
  }

  private void markDown(int instance) {
    synchronized (downUntil) {
      downUntil[instance] = System.nanoTime() + DOWN_NANOS;
    }
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
