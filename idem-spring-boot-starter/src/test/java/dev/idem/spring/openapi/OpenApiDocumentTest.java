package dev.idem.spring.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Reads {@code /v3/api-docs} over HTTP and holds it against what the filter does. */
@SpringBootTest(
    classes = DocumentedApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"idem.store=memory", "idem.http.paths=/carts/**"})
class OpenApiDocumentTest {

  private static final HttpClient CLIENT =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final List<String> PROBLEM_STATUSES = List.of("400", "409", "422", "429", "503");

  @LocalServerPort int port;
  private JsonNode document;

  @BeforeEach
  void readTheDocument() {
    HttpResponse<String> answer = send("GET", "/v3/api-docs", null);
    assertThat(answer.statusCode()).isEqualTo(200);
    document = JsonMapper.shared().readTree(answer.body());
  }

  @Test
  void aGuardedPostRequiresTheKeyHeaderAndNamesTheTokenInstead() {
    JsonNode key = keyHeader(operation("/payments", "post"));

    assertThat(key).isNotNull();
    assertThat(key.path("required").asBoolean()).isTrue();
    assertThat(key.path("schema").path("type").asString()).isEqualTo("string");
    assertThat(key.path("schema").path("minLength").asInt()).isEqualTo(1);
    assertThat(key.path("schema").path("maxLength").asInt()).isEqualTo(255);
    assertThat(key.path("schema").path("pattern").asString()).isEqualTo("^[!-~]+$");
    assertThat(key.path("description").asString())
        .contains("visible ASCII")
        .contains("X-Idempotent-Token")
        .contains("POST /api/tokens");
  }

  @Test
  void aKeyThatIsNotRequiredIsDocumentedAsOptional() {
    JsonNode key = keyHeader(operation("/notes", "post"));

    assertThat(key).isNotNull();
    assertThat(key.path("required").asBoolean(false)).isFalse();
    assertThat(operation("/notes", "post").path("responses").has("422")).isTrue();
  }

  @Test
  void anAnnotatedPutIsGuardedAsThePostIs() {
    assertThat(keyHeader(operation("/payments/{id}", "put")).path("required").asBoolean()).isTrue();
  }

  @Test
  void operationsTheFilterLetsThroughAreLeftAsTheyAre() {
    for (JsonNode operation :
        List.of(
            operation("/payments/{id}", "get"),
            operation("/carts/{id}", "get"),
            operation("/api/tokens", "post"))) {
      assertThat(operation.isMissingNode()).isFalse();
      assertThat(keyHeader(operation)).isNull();
      assertThat(operation.path("responses").propertyNames())
          .doesNotContainAnyElementsOf(PROBLEM_STATUSES);
      assertThat(operation.path("responses").path("200").path("headers").has("Idempotent-Replayed"))
          .isFalse();
    }
  }

  @Test
  void aPathPatternGuardsThePostOfAHandlerButNotItsGet() {
    assertThat(keyHeader(operation("/carts/{id}", "post")).path("required").asBoolean()).isTrue();
    assertThat(keyHeader(operation("/carts/{id}", "get"))).isNull();
  }

  @Test
  void aGuardedOperationAnswersTheFiveProblemsAsProblemDetails() {
    JsonNode responses = operation("/payments", "post").path("responses");

    for (String status : PROBLEM_STATUSES) {
      assertThat(
              responses
                  .path(status)
                  .path("content")
                  .path("application/problem+json")
                  .path("schema")
                  .path("$ref")
                  .asString())
          .as(status)
          .isEqualTo("#/components/schemas/IdempotencyProblem");
      assertThat(responses.path(status).path("description").asString()).as(status).isNotBlank();
    }
    assertThat(responses.path("400").path("description").asString())
        .contains("urn:idem:problem:missing-key")
        .contains("urn:idem:problem:invalid-key");
    assertThat(responses.path("409").path("description").asString())
        .contains("urn:idem:problem:in-progress");
    assertThat(responses.path("409").path("headers").has("Retry-After")).isTrue();
    assertThat(responses.path("422").path("description").asString())
        .contains("urn:idem:problem:key-reuse");
    assertThat(responses.path("429").path("description").asString())
        .contains("urn:idem:problem:store-full");
    assertThat(responses.path("429").path("headers").has("Retry-After")).isTrue();
    assertThat(responses.path("503").path("description").asString())
        .contains("urn:idem:problem:store-unavailable")
        .contains("urn:idem:problem:rolled-back");
    JsonNode problem = document.path("components").path("schemas").path("IdempotencyProblem");
    assertThat(problem.path("properties").propertyNames())
        .containsExactlyInAnyOrder("type", "title", "status", "detail");
  }

  @Test
  void theSuccessResponseOfAGuardedOperationCarriesTheReplayHeader() {
    JsonNode replayed =
        operation("/payments", "post")
            .path("responses")
            .path("200")
            .path("headers")
            .path("Idempotent-Replayed");

    assertThat(replayed.isMissingNode()).isFalse();
    assertThat(replayed.path("schema").path("enum").get(0).asString()).isEqualTo("true");
  }

  @Test
  void everyOperationTheDocumentSaysNeedsAKeyIsRefusedWithoutOneAndNoOtherIs() {
    List<String> refused = new ArrayList<>();
    List<String> documented = new ArrayList<>();
    for (Map.Entry<String, JsonNode> path : document.path("paths").properties()) {
      for (Map.Entry<String, JsonNode> operation : path.getValue().properties()) {
        String method = operation.getKey().toUpperCase(Locale.ROOT);
        String route = method + " " + path.getKey();
        JsonNode key = keyHeader(operation.getValue());
        if (key != null && key.path("required").asBoolean()) {
          documented.add(route);
        }
        String body = method.equals("GET") ? null : "{\"order\":\"A-1\",\"amount\":5}";
        HttpResponse<String> answer = send(method, path.getKey().replace("{id}", "7"), body);
        if (answer.statusCode() == 400 && answer.body().contains("missing-key")) {
          refused.add(route);
        }
      }
    }

    assertThat(refused)
        .containsExactlyInAnyOrderElementsOf(documented)
        .containsExactlyInAnyOrder("POST /payments", "PUT /payments/{id}", "POST /carts/{id}");
  }

  @Test
  void aRepeatIsAnsweredWithTheDocumentedReplayHeader() {
    String key = UUID.randomUUID().toString();
    String body = "{\"order\":\"A-2\",\"amount\":9}";

    HttpResponse<String> first = send("POST", "/payments", body, "Idempotency-Key", key);
    HttpResponse<String> repeat = send("POST", "/payments", body, "Idempotency-Key", key);

    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(
            operation("/payments", "post")
                .path("responses")
                .path("200")
                .path("headers")
                .has("Idempotent-Replayed"))
        .isTrue();
  }

  private JsonNode operation(String path, String method) {
    return document.path("paths").path(path).path(method);
  }

  private static JsonNode keyHeader(JsonNode operation) {
    for (JsonNode parameter : operation.path("parameters")) {
      if (parameter.path("in").asString().equals("header")
          && parameter.path("name").asString().equals("Idempotency-Key")) {
        return parameter;
      }
    }
    return null;
  }

  private HttpResponse<String> send(String method, String path, String body, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    try {
      return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
