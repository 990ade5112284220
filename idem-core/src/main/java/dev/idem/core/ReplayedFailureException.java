package dev.idem.core;

/**
 * Thrown to a repeat of a request whose first run ended in a terminal failure, when the {@link
 * ResultCodec} does not rebuild the original exception type. Carries the original type's name and
 * message.
 */
public class ReplayedFailureException extends IdempotencyException {

  private final String originalType;

  public ReplayedFailureException(String originalType, String message) {
    super(message, false);
    this.originalType = originalType;
  }

  /** The class name of the exception that the first run threw. */
  public String originalType() {
    return originalType;
  }
}
