package dev.idem.spring.openapi.internal;

import dev.idem.core.IdempotencyKey;
import dev.idem.spring.web.IdempotencyFilter;
import dev.idem.spring.web.internal.ProblemAnswer;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.HeaderParameter;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Writes into an OpenAPI operation what the filter asks of its requests and what it may answer in
 * the handler's place. What the operation documents already is kept: a header parameter of the same
 * name is left as it is, and a response of the same status gets the problem body beside its own
 * content.
 */
public final class OperationDocs {

  private static final String PROBLEM_SCHEMA = "IdempotencyProblem";
  private static final String PROBLEM_MEDIA_TYPE = "application/problem+json";
  private static final String RETRY_AFTER = "Retry-After";
  private static final String IN_PROGRESS =
      "A request with this key is still running ("
          + type("in-progress")
          + "): send it again after Retry-After seconds.";
  private static final String TOKEN_USED =
      " Also a token used before, when used tokens are refused (" + type("token-used") + ").";
  private static final String KEY_REUSE =
      "The key was used before with another request, whose method, path or body differ ("
          + type("key-reuse")
          + ").";
  private static final String STORE_FULL =
      "The caller holds too many live idempotency records, or the store is full ("
          + type("store-full")
          + "); the request did not run. Repeats of keys already used are still answered.";
  private static final String STORE_UNAVAILABLE =
      "The idempotency store cannot be reached ("
          + type("store-unavailable")
          + "); the request did not run. Also, when a transaction around the guarded chain rolled"
          + " back after the handler answered ("
          + type("rolled-back")
          + "): nothing was kept; send it again.";

  private final @Nullable String tokenPath;

  /**
   * @param tokenPath the path of the token endpoint, or null when clients get no tokens there
   */
  public OperationDocs(@Nullable String tokenPath) {
    this.tokenPath = tokenPath;
  }

  /**
   * Describes {@code operation} as guarded by the filter, with its key {@code required} or not, and
   * puts the problem schema into {@code api}'s components.
   */
  public void describe(OpenAPI api, Operation operation, boolean required) {
    if (api.getComponents() == null) {
      api.setComponents(new Components());
    }
    api.getComponents().addSchemas(PROBLEM_SCHEMA, problemSchema());
    if (!hasHeader(operation, IdempotencyFilter.KEY_HEADER)) {
      operation.addParametersItem(keyParameter(required));
    }
    if (operation.getResponses() == null) {
      operation.setResponses(new ApiResponses());
    }
    ApiResponses responses = operation.getResponses();
    responses.forEach(
        (status, response) -> {
          if (status.startsWith("2")) {
            response.addHeaderObject(IdempotencyFilter.REPLAYED_HEADER, replayedHeader());
          }
        });
    problem(responses, "400", badKey(required), false);
    problem(responses, "409", tokenPath == null ? IN_PROGRESS : IN_PROGRESS + TOKEN_USED, true);
    problem(responses, "422", KEY_REUSE, false);
    problem(responses, "429", STORE_FULL, true);
    problem(responses, "503", STORE_UNAVAILABLE, false);
  }

  private Parameter keyParameter(boolean required) {
    String description =
        "Makes the request take effect once: a repeat with the same key gets the first answer"
            + " back, marked "
            + IdempotencyFilter.REPLAYED_HEADER
            + ": true. 1 to "
            + IdempotencyKey.MAX_VALUE_LENGTH
            + " visible ASCII characters ('!' to '~'), sent bare or as a quoted string (\"abc\" is"
            + " the key abc).";
    if (tokenPath != null) {
      description +=
          " A one-shot token from POST "
              + tokenPath
              + ", sent in "
              + IdempotencyFilter.TOKEN_HEADER
              + ", may take its place.";
    }
    if (!required) {
      description += " Without either the request runs unguarded.";
    }
    StringSchema schema = new StringSchema();
    schema.minLength(1).maxLength(IdempotencyKey.MAX_VALUE_LENGTH).pattern("^[!-~]+$");
    return new HeaderParameter()
        .name(IdempotencyFilter.KEY_HEADER)
        .required(required)
        .description(description)
        .schema(schema);
  }

  private String badKey(boolean required) {
    String what = tokenPath == null ? "Idempotency-Key" : "Idempotency-Key or token";
    return (required ? "No " + what + " was sent (" + type("missing-key") + "), or the" : "The")
        + " Idempotency-Key is empty, too long, not visible ASCII, badly quoted or sent twice with"
        + " different values ("
        + type("invalid-key")
        + ")"
        + (tokenPath == null
            ? "."
            : ", or the token is unknown, forged or expired (" + type("unknown-token") + ").");
  }

  private static Header replayedHeader() {
    StringSchema schema = new StringSchema();
    schema.setEnum(List.of("true"));
    return new Header()
        .description(
            "Present, and true, when this answer is the stored answer to an earlier request with"
                + " the same key.")
        .schema(schema);
  }

  private static void problem(
      ApiResponses responses, String status, String description, boolean retryAfter) {
    ApiResponse response = responses.get(status);
    if (response == null) {
      response = new ApiResponse().description(description);
      responses.addApiResponse(status, response);
    }
    if (response.getContent() == null) {
      response.setContent(new Content());
    }
    response
        .getContent()
        .putIfAbsent(
            PROBLEM_MEDIA_TYPE,
            new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM_SCHEMA)));
    if (retryAfter) {
      response.addHeaderObject(
          RETRY_AFTER,
          new Header()
              .description("Seconds to wait before sending the request again.")
              .schema(new IntegerSchema()));
    }
  }

  private static Schema<?> problemSchema() {
    ObjectSchema schema = new ObjectSchema();
    schema.setDescription(
        "An RFC 9457 problem written by Idem; type is " + ProblemAnswer.TYPE_PREFIX + "<name>.");
    schema.addProperty("type", new StringSchema().format("uri"));
    schema.addProperty("title", new StringSchema());
    schema.addProperty("status", new IntegerSchema());
    schema.addProperty("detail", new StringSchema());
    schema.setRequired(List.of("type", "title", "status"));
    return schema;
  }

  private static boolean hasHeader(Operation operation, String name) {
    return operation.getParameters() != null
        && operation.getParameters().stream()
            .anyMatch(p -> "header".equals(p.getIn()) && name.equalsIgnoreCase(p.getName()));
  }

  private static String type(String name) {
    return ProblemAnswer.TYPE_PREFIX + name;
  }
}
