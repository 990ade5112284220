package dev.idem.core;

/**
 * Root of every exception Idem throws. Catching it catches all of Idem's failures and nothing of
 * the caller's own: an exception thrown by the work itself passes through unwrapped.
 */
public class IdempotencyException extends RuntimeException {

  public IdempotencyException(String message) {
    super(message);
  }

  public IdempotencyException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * For rejections on the hot path (a duplicate in flight, a reused key): they are normal answers
   * to a client, so they carry no stack trace and cost little to build.
   */
  protected IdempotencyException(String message, boolean withStackTrace) {
    super(message, null, false, withStackTrace);
  }
}
