package dev.idem.bench;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A virtual user's connection through {@code java.net.http.HttpClient}: one client per user, so
 * that each keeps its own keep-alive HTTP/1.1 connection. Kept to compare its CPU cost per request
 * with {@link RawHttpConnection}'s.
 */
final class JdkHttpConnection implements HttpConnection {

  private final HttpClient client;
  private final URI uri;
  private final HttpRequest.BodyPublisher body;

  JdkHttpConnection(int port, String path, String json) {
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    this.uri = URI.create("http://127.0.0.1:" + port + path);
    this.body = HttpRequest.BodyPublishers.ofString(json);
  }

  @Override
  public Answer post(String key) throws IOException {
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .header("Idempotency-Key", key)
            .POST(body)
            .build();
    try {
      HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
      boolean replayed =
          response.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent();
      return new Answer(response.statusCode(), replayed, response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for an answer");
    }
  }

  @Override
  public void close() {
    // HttpClient.close() exists only from Java 21; its connection goes with the client
  }
}
