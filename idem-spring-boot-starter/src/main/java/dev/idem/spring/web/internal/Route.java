package dev.idem.spring.web.internal;

import dev.idem.core.IdempotencyConfig;
import java.util.Set;

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

  /** True when an answer with {@code status} goes to the client unstored and frees the key. */
  public boolean isRetryable(int status) {
    return status >= 500 || retryableStatuses.contains(status);
  }
}
