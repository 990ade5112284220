package dev.idem.core;

/**
 * A document given to {@link CanonicalJson} is not valid JSON (RFC 8259), nests deeper than the
 * limit, or repeats a member name. The message names the offset where reading stopped.
 */
public class MalformedJsonException extends IdempotencyException {

  private final int offset;

  public MalformedJsonException(String message, int offset) {
    super(message + " at offset " + offset, false);
    this.offset = offset;
  }

  /** The character offset in the input at which the problem was found. */
  public int offset() {
    return offset;
  }
}
