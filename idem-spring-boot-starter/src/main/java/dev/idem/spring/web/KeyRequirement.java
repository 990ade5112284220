package dev.idem.spring.web;

/**
 * What the {@link IdempotencyFilter} asks of the requests of one route and HTTP method: the answer
 * of {@link IdempotencyFilter#keyRequirement}.
 */
public enum KeyRequirement {

  /** The filter lets the requests through untouched. */
  NONE,

  /**
   * Requests that carry an {@code Idempotency-Key} or an {@code X-Idempotent-Token} are guarded;
   * those without either run unguarded ({@code @Idempotent(required = false)}).
   */
  OPTIONAL,

  /** Every request needs an {@code Idempotency-Key} or {@code X-Idempotent-Token}; else 400. */
  REQUIRED
}
