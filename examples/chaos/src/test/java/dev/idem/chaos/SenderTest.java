package dev.idem.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idem.testsupport.net.FaultProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Sender} against two scripted shops, the first behind a {@link FaultProxy}: it retries by
 * the rules of Idem's client ({@code IdempotentRetries}), fails over to the next shop when one
 * gives no answer, and counts every attempt in the {@link Ledger}.
 */
class SenderTest {

  static {
    // The JDK's server otherwise waits out the client's delayed ACK (40 ms) on every kept-alive
    // request: it writes an answer's head and body apart.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private final Shop first = new Shop();
  private final Shop second = new Shop();
  private final FaultProxy proxy = FaultProxy.start("127.0.0.1", first.port());
  private final Ledger ledger = new Ledger();
  private final List<URI> shops =
      List.of(URI.create("http://127.0.0.1:" + proxy.port()), second.uri());
  private final Sender sender =
      new Sender(
          shops,
          ledger,
          new Timeline(),
          System.nanoTime(),
          Sender.retries(shops).delay(Duration.ofMillis(1), Duration.ofMillis(5)).build());

  @AfterEach
  void stop() {
    proxy.close();
    first.close();
    second.close();
  }

  private Optional<Answer> order(String key) throws InterruptedException {
    ledger.key(Operation.ORDER, "chaos001", key, "O-1");
    return sender.keyed(Operation.ORDER, "chaos001", key, "/api/orders", "{}", 0);
  }

  @Test
  void aTooManyRequestsAnswerIsRetriedUnderTheSameKeyAsRetryAfterSays() throws Exception {
    first.then(429, "{\"type\":\"urn:idem:problem:store-full\"}", 0);
    first.then(201, "{\"orderNo\":\"O-1\"}", -1);

    assertThat(order("k-1")).hasValueSatisfying(a -> assertThat(a.status()).isEqualTo(201));
    assertThat(first.keys).containsExactly("k-1", "k-1");
    assertThat(ledger.requests()).isEqualTo(2);
  }

  @Test
  void theShopsRetryableAnswersAreCountedEachAndTheCompletedOneIsRecorded() throws Exception {
    first.then(409, "{\"type\":\"urn:idem:problem:in-progress\"}", 0);
    first.then(504, "{\"type\":\"gateway-timeout\"}", -1);
    first.then(503, "{\"type\":\"wallet-busy\"}", 0);
    first.then(500, "{\"type\":\"boom\"}", -1);
    first.then(201, "{\"orderNo\":\"O-1\"}", -1);

    assertThat(order("k-2")).hasValueSatisfying(a -> assertThat(a.status()).isEqualTo(201));

    assertThat(ledger.requests()).isEqualTo(5);
    assertThat(ledger.inProgressAnswers()).isEqualTo(1);
    assertThat(ledger.gatewayTimeouts()).isEqualTo(1);
    assertThat(ledger.walletBusyAnswers()).isEqualTo(1);
    assertThat(ledger.serverErrors())
        .singleElement()
        .satisfies(e -> assertThat(e.answer().status()).isEqualTo(500));
    assertThat(ledger.keys())
        .singleElement()
        .satisfies(k -> assertThat(k.answers()).extracting(Answer::status).containsExactly(201));
  }

  @Test
  void aKeyReuseAnswerIsCompletedAtOnce() throws Exception {
    first.then(422, "{\"type\":\"urn:idem:problem:key-reuse\"}", -1);

    assertThat(order("k-3")).hasValueSatisfying(a -> assertThat(a.status()).isEqualTo(422));
    assertThat(ledger.requests()).isEqualTo(1);
  }

  @Test
  void aShopThatGivesNoAnswerIsPassedOverAndTheNextGetsTheSameKey() throws Exception {
    proxy.refuse(true);

    assertThat(order("k-4")).hasValueSatisfying(a -> assertThat(a.status()).isEqualTo(200));
    assertThat(second.keys).containsExactly("k-4");
    assertThat(ledger.connectionErrors()).isEqualTo(1);
    assertThat(ledger.requests()).isEqualTo(2);
  }

  @Test
  void anOperationStillFailingWhenTheBudgetRunsOutIsGivenUp() throws Exception {
    for (int i = 0; i < Sender.MAX_ATTEMPTS + 2; i++) {
      first.then(500, "{\"type\":\"boom\"}", -1);
    }

    assertThat(order("k-5")).isEmpty();
    assertThat(first.keys).hasSize(Sender.MAX_ATTEMPTS).containsOnly("k-5");
    assertThat(ledger.serverErrors()).hasSize(Sender.MAX_ATTEMPTS);
    assertThat(ledger.abandonedOperations()).isEqualTo(1);
    assertThat(ledger.keys()).singleElement().satisfies(k -> assertThat(k.answers()).isEmpty());
  }

  @Test
  void requestsReuseTheToolsThreadsInsteadOfStartingOneEach() throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    order("k-warm");
    long before = threads.getTotalStartedThreadCount();

    for (int i = 0; i < 300; i++) {
      ledger.key(Operation.ORDER, "chaos001", "k-t" + i, "O-1");
      assertThat(sender.keyed(Operation.ORDER, "chaos001", "k-t" + i, "/api/orders", "{}", 1))
          .isPresent();
    }

    // The threads a load may need are started once: a thread per request starves the shops
    // under test of the CPU they share with the tool.
    assertThat(threads.getTotalStartedThreadCount() - before).isLessThan(30);
  }

  /** A shop that answers from a script: status, body and Retry-After (-1 for none). */
  private static final class Shop implements AutoCloseable {
    private final Queue<Object[]> script = new ConcurrentLinkedQueue<>();
    private final List<String> keys = new CopyOnWriteArrayList<>();
    private final HttpServer server;

    Shop() {
      try {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      server.createContext("/", this::answer);
      server.start();
    }

    void then(int status, String body, int retryAfter) {
      script.add(new Object[] {status, body, retryAfter});
    }

    int port() {
      return server.getAddress().getPort();
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + port());
    }

    private void answer(HttpExchange exchange) throws IOException {
      exchange.getRequestBody().readAllBytes();
      String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
      keys.add(key == null ? "none" : key);
      Object[] next = script.poll();
      if (next == null) {
        next = new Object[] {200, "{}", -1};
      }
      if ((int) next[2] >= 0) {
        exchange.getResponseHeaders().set("Retry-After", next[2].toString());
      }
      byte[] body = ((String) next[1]).getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders((int) next[0], body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
