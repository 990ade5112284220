package dev.idem.spring.web.internal;

import dev.idem.core.IdempotencyConfig;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A protected route as the filter sees it.
 *
 * @param operation the key scope's operation part and the name of its policy
 * @param template the route template ({@code /orders/{id}}); the operation name defaults to it,
 *     while the fingerprint holds the request's actual path
 * @param required false when requests without a key pass through unprotected
 * @param config the engine config for this route
 * @param ignoredFields JSON paths left out of the fingerprint of a JSON body
 * @param retryableStatuses statuses answered but not stored, freeing the key (5xx always are)
 */
public record Route(
    String operation,
    String template,
    boolean required,
    IdempotencyConfig config,
    Set<String> ignoredFields,
    Set<Integer> retryableStatuses) {

  /**
   * True when an answer goes to the client unstored and frees the key: a 5xx, a status of the
   * policy's {@code retryable-statuses}, or a 4xx that carries {@code Retry-After}, which asks the
   * client to come back later (an Idem refusal from a bean method the handler called: in progress,
   * store full; or the application's own) and so is not the operation's outcome.
   *
   * @param retryAfter the answer's {@code Retry-After} header, or null
   */
  public boolean isRetryable(int status, @Nullable String retryAfter) {
    return status >= 500
        || retryableStatuses.contains(status)
        || (status >= 400 && retryAfter != null);
  }
}
