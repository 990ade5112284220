package dev.idem.core;

/** What a duplicate gets while the first request with its key is still running. */
public enum InProgressPolicy {
  /** Refuse at once with {@link RequestInProgressException} (HTTP 409 + Retry-After). */
  REJECT,
  /**
   * Block until the first completes and return its result, or refuse as {@link #REJECT} does once
   * {@link IdempotencyConfig#maxWait()} has passed.
   */
  WAIT
}
