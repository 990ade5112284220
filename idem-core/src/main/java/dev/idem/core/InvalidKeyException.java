package dev.idem.core;

/**
 * The idempotency key is missing, empty, too long or holds characters other than visible ASCII.
 * Maps to HTTP 400 with problem type {@code invalid-key} (or {@code missing-key}).
 */
public class InvalidKeyException extends IdempotencyException {

  private final boolean missing;

  public InvalidKeyException(String message) {
    this(message, false);
  }

  private InvalidKeyException(String message, boolean missing) {
    super(message, false);
    this.missing = missing;
  }

  /** The key that the operation requires was not sent at all. */
  public static InvalidKeyException missing(String message) {
    return new InvalidKeyException(message, true);
  }

  /** True when no key was sent, false when one was sent but is not valid. */
  public boolean isMissing() {
    return missing;
  }
}
