package dev.idem.spring.web.internal;

import dev.idem.core.IdempotencyConfig;
import java.util.Set;

/**
 * A protected route as the filter sees it.
 *
 * @param operation the key scope's operation part and the name of its policy
 * @param template the route template that goes into the fingerprint ({@code /orders/{id}})
 * @param required false when requests without a key pass through unprotected
 * @param config the engine config for this route
 * @param ignoredFields JSON paths left out of the fingerprint of a JSON body
 */
public record Route(
    String operation,
    String template,
    boolean required,
    IdempotencyConfig config,
    Set<String> ignoredFields) {}
