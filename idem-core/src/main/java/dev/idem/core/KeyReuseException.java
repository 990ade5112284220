package dev.idem.core;

/**
 * The key was used before with a different request payload. Never a repeat: a client bug. Maps to
 * HTTP 422 with problem type {@code key-reuse}.
 */
public class KeyReuseException extends IdempotencyException {

  private final transient IdempotencyKey key;

  public KeyReuseException(IdempotencyKey key) {
    super(
        "key "
            + key.value()
            + " was already used with a different request; a new request needs a new key",
        false);
    this.key = key;
  }

  /** The reused key. */
  public IdempotencyKey key() {
    return key;
  }
}
