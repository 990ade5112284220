package dev.idem.spring.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idem.testsupport.net.FaultProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real HTTP server on 127.0.0.1 that answers from a script, behind a {@link FaultProxy} that can
 * lose its replies. Each answer's body is {@code answer <status> #<n>}, n counting the requests, so
 * a test can tell which attempt's answer the caller got. Without a script it answers 200.
 */
final class ScriptedServer implements AutoCloseable {

  private final Queue<int[]> script =
      new ConcurrentLinkedQueue<>(); // {status, retryAfterSeconds or -1}
  private final List<String> keysSeen = new CopyOnWriteArrayList<>();
  private final HttpServer server;
  private final FaultProxy proxy;

  ScriptedServer() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", this::answer);
    server.start();
    proxy = FaultProxy.start("127.0.0.1", server.getAddress().getPort());
  }

  /** Where clients send: the proxy in front of the server. */
  String url() {
    return "http://127.0.0.1:" + proxy.port();
  }

  /** Queues the next answer; {@code retryAfter} seconds in {@code Retry-After}, or -1 for none. */
  void then(int status, int retryAfter) {
    script.add(new int[] {status, retryAfter});
  }

  /** A {@code retryAfter} that sends the header as an HTTP date. */
  static final int DATE = -2;

  /** Queues the next answer, without {@code Retry-After}. */
  void then(int status) {
    then(status, -1);
  }

  /** Queues the next answer marked {@code Idempotent-Replayed: true}, as a server keeping keys. */
  void thenReplayed(int status) {
    script.add(new int[] {status, REPLAYED});
  }

  private static final int REPLAYED = -3;

  /**
   * The next request reaches the server and runs, but its reply is lost: the client's connection is
   * reset before any answer.
   */
  void loseNextReply() {
    proxy.loseReplies(1);
  }

  /** While on, the bytes of every connection are held back, not lost, until it is turned off. */
  void hold(boolean on) {
    proxy.hold(on);
  }

  /** The {@code Idempotency-Key} of every request in arrival order, {@code "none"} for none. */
  List<String> keysSeen() {
    return keysSeen;
  }

  private void answer(HttpExchange exchange) throws IOException {
    exchange.getRequestBody().readAllBytes();
    String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
    keysSeen.add(key == null ? "none" : key);
    int[] next = script.poll();
    if (next == null) {
      next = new int[] {200, -1};
    }
    if (next[1] >= 0) {
      exchange.getResponseHeaders().set("Retry-After", Integer.toString(next[1]));
    } else if (next[1] == DATE) {
      exchange.getResponseHeaders().set("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT");
    } else if (next[1] == REPLAYED) {
      exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
    }
    byte[] body = ("answer " + next[0] + " #" + keysSeen.size()).getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(next[0], body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  @Override
  public void close() {
    proxy.close();
    server.stop(0);
  }
}
