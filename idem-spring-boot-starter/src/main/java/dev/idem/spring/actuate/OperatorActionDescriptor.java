package dev.idem.spring.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The answer to a write of the {@code idempotency} endpoint.
 *
 * @param done whether the record was given up
 * @param message what was done, or why nothing was
 * @param record the record as it was read before the write; null when the store could not be read
 */
public record OperatorActionDescriptor(
    boolean done, String message, @Nullable IdempotencyRecordDescriptor record)
    implements OperationResponseBody {}
