package dev.idem.spring.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

/**
 * {@link IdempotentRetries} against a real HTTP server that answers from a script: which answers it
 * retries, under which key, after how long, and what the caller gets.
 */
class IdempotentRetriesTest {

  private final Deque<int[]> script = new ArrayDeque<>(); // {status, retryAfterSeconds or -1}
  private final List<String> keysSeen = new CopyOnWriteArrayList<>();
  private final List<Long> arrivals = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private RestClient client;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::answer);
    server.start();
    client =
        RestClient.builder()
            .baseUrl("http://127.0.0.1:" + server.getAddress().getPort())
            .requestFactory(new JdkClientHttpRequestFactory())
            .requestInterceptor(
                IdempotentRetries.builder()
                    .delay(Duration.ofMillis(10), Duration.ofMillis(50))
                    .build())
            .build();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void answer(HttpExchange exchange) throws IOException {
    arrivals.add(System.nanoTime());
    String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
    keysSeen.add(key == null ? "none" : key);
    int[] next = script.isEmpty() ? new int[] {200, -1} : script.poll();
    if (next[1] >= 0) {
      exchange.getResponseHeaders().set("Retry-After", Integer.toString(next[1]));
    }
    byte[] body = ("answer " + next[0] + " #" + keysSeen.size()).getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(next[0], body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  private void then(int status, int retryAfter) {
    script.add(new int[] {status, retryAfter});
  }

  @Test
  void aCallRetriedAfter5xxAnd409And429KeepsItsOneKeyAndGetsTheLastAnswer() {
    then(503, -1);
    then(409, -1);
    then(429, -1);
    then(201, -1);

    String answer = client.post().uri("/orders").body("{}").retrieve().body(String.class);

    assertThat(answer).isEqualTo("answer 201 #4");
    assertThat(keysSeen).hasSize(4).doesNotContain("none");
    assertThat(keysSeen).containsOnly(keysSeen.get(0));
  }

  @Test
  void theCallersOwnKeyIsKept() {
    then(502, -1);

    client
        .post()
        .uri("/orders")
        .header("Idempotency-Key", "form-7")
        .body("{}")
        .retrieve()
        .toBodilessEntity();

    assertThat(keysSeen).containsExactly("form-7", "form-7");
  }

  @Test
  void everyCallHasAKeyOfItsOwn() {
    client.post().uri("/orders").body("{}").retrieve().toBodilessEntity();
    client.post().uri("/orders").body("{}").retrieve().toBodilessEntity();

    assertThat(keysSeen).hasSize(2).doesNotHaveDuplicates();
  }

  @Test
  void otherClientErrorsAreAnsweredAtOnceAnd422ReachesTheCaller() {
    then(422, -1);
    assertThatThrownBy(() -> client.post().uri("/orders").body("{}").retrieve().toBodilessEntity())
        .isInstanceOf(HttpClientErrorException.UnprocessableContent.class);
    then(400, -1);
    assertThatThrownBy(() -> client.post().uri("/orders").body("{}").retrieve().toBodilessEntity())
        .isInstanceOf(HttpClientErrorException.BadRequest.class);

    assertThat(keysSeen).hasSize(2);
  }

  @Test
  void retryAfterIsHonoured() {
    then(503, 1);

    client.post().uri("/orders").body("{}").retrieve().toBodilessEntity();

    assertThat(arrivals).hasSize(2);
    // the backoff alone would have waited 10 to 15 ms; the server asked for a second
    assertThat(Duration.ofNanos(arrivals.get(1) - arrivals.get(0)))
        .isGreaterThanOrEqualTo(Duration.ofMillis(900));
  }

  @Test
  void whenTheBudgetRunsOutTheCallerGetsTheLastAnswer() {
    for (int i = 0; i < 6; i++) {
      then(503, -1);
    }

    assertThatThrownBy(() -> client.post().uri("/orders").body("{}").retrieve().toBodilessEntity())
        .hasMessageContaining("503");

    assertThat(keysSeen).hasSize(4);
  }

  @Test
  void otherMethodsPassThroughWithoutAKeyOrARetry() {
    then(503, -1);

    assertThatThrownBy(() -> client.get().uri("/orders").retrieve().toBodilessEntity())
        .hasMessageContaining("503");

    assertThat(keysSeen).containsExactly("none");
  }
}
