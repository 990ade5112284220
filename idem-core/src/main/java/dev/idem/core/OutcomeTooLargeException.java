package dev.idem.core;

import dev.idem.core.store.Outcome;

/**
 * The work's encoded result is larger than the store accepts. Thrown by the store before anything
 * is written, or by a codec that will not encode a result that large. The work did run, so the
 * engine keeps the key: it stores {@link Outcome#unstored} in place of the result, hands the result
 * to the caller that ran the work, and every repeat gets {@link OutcomeNotReplayableException}.
 * Raise the store's limit or return less.
 */
public class OutcomeTooLargeException extends IdempotencyException {

  private final int size;
  private final int limit;

  public OutcomeTooLargeException(int size, int limit) {
    this(
        "outcome of " + size + " bytes is over the store's limit of " + limit + " bytes",
        size,
        limit);
  }

  /** A result over a limit counted in other units than bytes, which {@code message} names. */
  public OutcomeTooLargeException(String message, int size, int limit) {
    super(message);
    this.size = size;
    this.limit = limit;
  }

  /** The size of the refused outcome, in bytes unless the message says otherwise. */
  public int size() {
    return size;
  }

  /** The limit, in the size's units. */
  public int limit() {
    return limit;
  }
}
