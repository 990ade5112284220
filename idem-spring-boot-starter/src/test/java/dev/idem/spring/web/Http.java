package dev.idem.spring.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/** A small java.net.http client for the conformance suite. */
final class Http {

  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private final int port;

  Http(int port) {
    this.port = port;
  }

  HttpRequest.Builder request(String method, String path, String body, String... headers) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    boolean typed = false;
    for (int i = 0; i < headers.length; i += 2) {
      typed |= headers[i].equalsIgnoreCase("Content-Type");
    }
    if (body != null && !typed) {
      builder.header("Content-Type", "application/json");
    }
    // one connection per request: Reactor Netty 1.3.6 can stop reading a kept-alive connection
    // (reactor-netty issue 4361; see the surefire configuration)
    builder.header("Connection", "close");
    for (int i = 0; i < headers.length; i += 2) {
      builder.header(headers[i], headers[i + 1]);
    }
    return builder;
  }

  HttpResponse<String> send(String method, String path, String body, String... headers) {
    try {
      return CLIENT.send(request(method, path, body, headers).build(), bodyHandler());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Sends a bodiless POST and answers once the response's head has come, its body still open. */
  CompletableFuture<HttpResponse<java.io.InputStream>> startPost(String path, String... headers) {
    return CLIENT.sendAsync(
        request("POST", path, null, headers).build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  CompletableFuture<HttpResponse<String>> sendAsync(
      String method, String path, String body, String... headers) {
    return CLIENT.sendAsync(request(method, path, body, headers).build(), bodyHandler());
  }

  /**
   * Sends a bodiless request from the local address {@code from} (another loopback address, such as
   * 127.0.0.2, is another client) and answers the whole raw reply: status line, headers and body.
   */
  String sendFrom(String from, String method, String path, String... headers) {
    try (Socket socket = new Socket()) {
      socket.bind(new InetSocketAddress(from, 0));
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(20_000);
      StringBuilder request =
          new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n");
      request.append("Content-Length: 0\r\nConnection: close\r\n");
      for (int i = 0; i < headers.length; i += 2) {
        request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
      }
      request.append("\r\n");
      socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A header value made of characters that key parsing must cope with. */
  static String fuzzedHeader(Random random) {
    String alphabet = "ab\"\\ ,;=:!~\t";
    StringBuilder out = new StringBuilder();
    int length = random.nextInt(8) == 0 ? 250 + random.nextInt(10) : 1 + random.nextInt(6);
    for (int i = 0; i < length; i++) {
      out.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    String text = out.toString().strip();
    return text.isEmpty() ? "\"\"" : text;
  }

  private static HttpResponse.BodyHandler<String> bodyHandler() {
    return HttpResponse.BodyHandlers.ofString();
  }
}
