package dev.idem.core;

/**
 * The store could not be reached or failed. By default the engine fails closed with this exception
 * (HTTP 503) rather than run work it cannot deduplicate.
 */
public class IdempotencyStoreException extends IdempotencyException {

  public IdempotencyStoreException(String message) {
    super(message);
  }

  public IdempotencyStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
