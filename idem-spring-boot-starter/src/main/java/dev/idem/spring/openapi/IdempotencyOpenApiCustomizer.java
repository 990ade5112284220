package dev.idem.spring.openapi;

import dev.idem.spring.openapi.internal.OperationDocs;
import dev.idem.spring.web.IdempotencyFilter;
import dev.idem.spring.web.KeyRequirement;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem.HttpMethod;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springdoc.core.customizers.GlobalOpenApiCustomizer;
import org.springdoc.core.customizers.GlobalOperationCustomizer;
import org.springframework.web.method.HandlerMethod;

/**
 * Documents, in every OpenAPI document springdoc builds, what the {@link IdempotencyFilter} does to
 * the operations it guards: the {@code Idempotency-Key} request header (required unless the
 * handler's {@code @Idempotent} says {@code required = false}), the {@code Idempotent-Replayed}
 * header of success responses, and the {@code application/problem+json} answers 400, 409 (with
 * {@code Retry-After}), 422, 429 (with {@code Retry-After}) and 503. Operations the filter lets
 * through are left as they are. Which operations are guarded is the filter's own decision ({@link
 * IdempotencyFilter#keyRequirement}), asked for each path and HTTP method.
 *
 * <p>It works in two steps because springdoc tells an operation customizer the handler but not the
 * HTTP method or the path, while a handler mapped to several methods (or matched by {@code
 * idem.http.paths}) may be guarded on one and not on another: as an operation customizer it notes
 * each operation's handler, and as an OpenAPI customizer, once every path is built, it describes
 * the guarded operations.
 */
public class IdempotencyOpenApiCustomizer
    implements GlobalOperationCustomizer, GlobalOpenApiCustomizer {

  private final IdempotencyFilter filter;
  private final OperationDocs docs;
  // springdoc builds the documents of several groups on as many threads; each reads back only the
  // operations it built, so entries are looked up by identity and removed once read
  private final Map<Operation, HandlerMethod> handlers =
      Collections.synchronizedMap(new IdentityHashMap<>());

  /**
   * @param filter the filter whose decisions are documented
   * @param tokenPath where clients get tokens ({@code POST}), named beside the key header; null
   *     when the token endpoint is off
   */
  public IdempotencyOpenApiCustomizer(IdempotencyFilter filter, @Nullable String tokenPath) {
    this.filter = filter;
    this.docs = new OperationDocs(tokenPath);
  }

  /** Notes the handler of {@code operation}; the operation is described later, if guarded. */
  @Override
  public Operation customize(Operation operation, HandlerMethod handler) {
    handlers.put(operation, handler);
    return operation;
  }

  /** Describes every operation of {@code api} whose path and method the filter guards. */
  @Override
  public void customise(OpenAPI api) {
    if (api.getPaths() != null) {
      api.getPaths()
          .forEach(
              (path, item) ->
                  item.readOperationsMap()
                      .forEach((method, operation) -> describe(api, path, method, operation)));
    }
  }

  private void describe(OpenAPI api, String path, HttpMethod method, Operation operation) {
    HandlerMethod handler = handlers.remove(operation);
    KeyRequirement requirement =
        handler == null ? KeyRequirement.NONE : filter.keyRequirement(handler, method.name(), path);
    if (requirement != KeyRequirement.NONE) {
      docs.describe(api, operation, requirement == KeyRequirement.REQUIRED);
    }
  }
}
