package dev.idem.core;

/**
 * The store refused a new key because a bound is reached: the caller's cap on live records, or the
 * store's own size. Nothing was written and the work did not run. This is not the store being down:
 * fail open never applies to it, since running unguarded would let a caller who filled its share
 * switch deduplication off for itself. Maps to HTTP 429 with the problem type {@code store-full}.
 */
public class StoreFullException extends IdempotencyException {

  public StoreFullException(String message) {
    super(message, false);
  }

  /** The refusal of a new key in {@code scope}, which holds {@code cap} live records. */
  public static StoreFullException scopeCap(int cap, String scope) {
    return new StoreFullException(
        "the caller's cap of " + cap + " live records is reached for " + scope);
  }
}
