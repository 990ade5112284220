package dev.idem.core;

import java.time.Duration;

/**
 * A duplicate arrived while the first request with its key is still running (REJECT policy, or WAIT
 * that ran out of time). Maps to HTTP 409 with {@code Retry-After}.
 */
public class RequestInProgressException extends IdempotencyException {

  private final transient IdempotencyKey key;
  private final Duration retryAfter;

  public RequestInProgressException(IdempotencyKey key, Duration retryAfter) {
    super(
        "a request with key "
            + key.value()
            + " is still in progress; retry later with the same key for its answer",
        false);
    this.key = key;
    this.retryAfter = retryAfter;
  }

  /** The key in use. */
  public IdempotencyKey key() {
    return key;
  }

  /** How long the client should wait before trying again. */
  public Duration retryAfter() {
    return retryAfter;
  }
}
