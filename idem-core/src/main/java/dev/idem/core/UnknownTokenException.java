package dev.idem.core;

/**
 * A token that was never issued, has expired, or is malformed. Maps to HTTP 400 with problem type
 * {@code unknown-token}.
 */
public class UnknownTokenException extends IdempotencyException {

  public UnknownTokenException(String message) {
    super(message, false);
  }
}
