package dev.idem.chaos;

import dev.idem.spring.client.IdempotentRetries;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.Timeout;
import org.springframework.http.MediaType;
import org.springframework.http.client.BufferingClientHttpRequestFactory;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
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
final class Sender implements AutoCloseable {

  /** Attempts of one operation, the first included. */
  static final int MAX_ATTEMPTS = 10;

  /** How long one operation may keep retrying before it is given up. */
  static final Duration GIVE_UP = Duration.ofSeconds(45);

  /**
   * Connections the pool may open: more than the most requests in flight at once (at most 200
   * users, each with a copy at the same moment, and the later repeats), all on one shop when the
   * others are down, so that no request waits for a connection.
   */
  private static final int CONNECTIONS = 1024;

  // A blocking client: the JDK's sends each request through its async machinery, and on two
  // cores that starts a thread per request (the common pool has one thread), which cost the tool
  // more CPU than a shop and held the load it could drive below half of what the shops can take.
  private final CloseableHttpClient http;
  private final List<URI> endpoints;
  private final Ledger ledger;
  private final long startNanos;
  private final RestClient client;

  Sender(List<URI> endpoints, Ledger ledger, Timeline timeline, long startNanos) {
    this(endpoints, ledger, timeline, startNanos, retries(endpoints).build());
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
    this.http = httpClient();
    this.client =
        RestClient.builder()
            .requestFactory(
                new BufferingClientHttpRequestFactory(
                    new HttpComponentsClientHttpRequestFactory(http)))
            .requestInterceptor(retries)
            .requestInterceptor(new Attempts(endpoints, ledger, timeline, this::now))
            .build();
  }

  private static CloseableHttpClient httpClient() {
    PoolingHttpClientConnectionManager pool =
        PoolingHttpClientConnectionManagerBuilder.create()
            .setMaxConnPerRoute(CONNECTIONS)
            .setMaxConnTotal(CONNECTIONS)
            // how long a read may wait is the request's response timeout, set below and by get()
            .setDefaultConnectionConfig(
                ConnectionConfig.custom().setConnectTimeout(Timeout.ofSeconds(2)).build())
            .build();
    return HttpClients.custom()
        .setConnectionManager(pool)
        .setDefaultRequestConfig(
            RequestConfig.custom().setResponseTimeout(Timeout.ofSeconds(20)).build())
        .disableAutomaticRetries()
        .disableRedirectHandling()
        .build();
  }

  /**
   * The tool's budget on Idem's rules: {@link #MAX_ATTEMPTS} within {@link #GIVE_UP}, to shops
   * known to honour the key, whose 500s are retried too: a rerun after a 500 meets the shop's own
   * unique keys (order number, payment number, one ledger row per order), and the audit checks that
   * it changed nothing.
   */
  static IdempotentRetries.Builder retries(List<URI> endpoints) {
    return IdempotentRetries.builder()
        .maxAttempts(MAX_ATTEMPTS)
        .timeout(GIVE_UP)
        .keysHonouredBy(endpoints.stream().map(URI::toString).toArray(String[]::new))
        .retryServerErrors(true);
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
  Optional<Answer> get(String path, String user, String password, int instance) {
    HttpGet request =
        new HttpGet(endpoints.get(Math.floorMod(instance, endpoints.size())).resolve(path));
    request.setHeader("Authorization", basic(user, password));
    // the audit reads every order of the run: longer than an operation's request may take
    request.setConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofSeconds(30)).build());
    long start = now();
    try {
      return Optional.of(
          http.execute(
              request,
              response ->
                  new Answer(
                      response.getCode(),
                      response.getEntity() == null
                          ? ""
                          : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8),
                      start,
                      now())));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Closes the connections this sender keeps open to the shops. */
  @Override
  public void close() {
    http.close(org.apache.hc.core5.io.CloseMode.GRACEFUL);
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
