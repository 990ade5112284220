package dev.idem.core;

/**
 * The work's encoded result is larger than the store accepts. Thrown by the store before anything
 * is written. The work did run; the engine releases the key (so a retry runs it again) and hands
 * this exception to the caller instead of the result. Raise the store's limit or return less.
 */
public class OutcomeTooLargeException extends IdempotencyException {

  private final int size;
  private final int limit;

  public OutcomeTooLargeException(int size, int limit) {
    super("outcome of " + size + " bytes is over the store's limit of " + limit + " bytes");
    this.size = size;
    this.limit = limit;
  }

  /** The size of the refused outcome in bytes. */
  public int size() {
    return size;
  }

  /** The store's limit in bytes. */
  public int limit() {
    return limit;
  }
}
