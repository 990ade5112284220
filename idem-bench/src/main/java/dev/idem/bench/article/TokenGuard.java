package dev.idem.bench.article;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the token benchmark needs of a token service: hand out a token, and run an action for a
 * request that carries one, as the article's {@code OrderController} does with its {@code
 * X-Idempotent-Token} header.
 */
public interface TokenGuard {

  /** Issues a new token (the article's {@code GET /api/order/token}). */
  String issue();

  /**
   * Runs {@code action} if {@code token} lets this request through.
   *
   * @return the action's result, or empty when the request was refused as a repeat
   * @throws RuntimeException what the action threw, after the token was given back
   */
  Optional<String> submit(String token, Supplier<String> action);
}
