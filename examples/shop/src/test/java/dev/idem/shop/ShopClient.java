package dev.idem.shop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A user of the shop over real HTTP (java.net.http), logged in with HTTP Basic. */
final class ShopClient {

  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** An answer: status, the replay marker, Retry-After (or null), the body as text and as JSON. */
  record Answer(int status, boolean replayed, String retryAfter, String body) {
    JsonNode json() {
      return JSON.readTree(body);
    }

    String text(String field) {
      return json().path(field).asString();
    }
  }

  private final int port;
  private final String authorization;

  ShopClient(int port, String user, String password) {
    this.port = port;
    this.authorization =
        "Basic "
            + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  private ShopClient(int port) {
    this.port = port;
    this.authorization = null;
  }

  /** A client that sends no credentials. */
  static ShopClient anonymous(int port) {
    return new ShopClient(port);
  }

  Answer get(String path) {
    return send("GET", path, null);
  }

  Answer post(String path, String body, String... headers) {
    return send("POST", path, body, headers);
  }

  /** Creates an order under a fresh key and returns its number. */
  String order(String sku, int quantity) {
    Answer answer =
        post(
            "/api/orders",
            "{\"items\":[{\"sku\":\"" + sku + "\",\"quantity\":" + quantity + "}]}",
            "Idempotency-Key",
            java.util.UUID.randomUUID().toString());
    if (answer.status() != 201) {
      throw new IllegalStateException("order refused: " + answer);
    }
    return answer.text("orderNo");
  }

  Answer pay(String orderNo, String method, String key) {
    return post(
        "/api/orders/" + orderNo + "/payments",
        "{\"method\":\"" + method + "\"}",
        "Idempotency-Key",
        key);
  }

  Answer send(String method, String path, String body, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    try {
      HttpResponse<String> response =
          HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(
          response.statusCode(),
          response.headers().firstValue("Idempotent-Replayed").isPresent(),
          response.headers().firstValue("Retry-After").orElse(null),
          response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
