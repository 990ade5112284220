package dev.idem.spring.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The answer to a retry or a drop of an abandoned call through the {@code idempotency} endpoint.
 *
 * @param done whether the call was retried or dropped
 * @param message what was done, or why nothing was
 * @param call the call as it was found; null when it was not
 */
public record AbandonedCallActionDescriptor(
    boolean done, String message, @Nullable AbandonedCallDescriptor call)
    implements OperationResponseBody {}
