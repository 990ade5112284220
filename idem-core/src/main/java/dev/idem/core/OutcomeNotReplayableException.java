package dev.idem.core;

/**
 * A repeat of work that ran once but whose result could not be kept (it was over the store's size
 * limit). The effect happened and the work is never run again for this key; its answer went only to
 * the caller that ran it. Maps to HTTP 410 with the problem type {@code not-replayable}.
 */
public class OutcomeNotReplayableException extends IdempotencyException {

  private final transient IdempotencyKey key;

  public OutcomeNotReplayableException(IdempotencyKey key, String reason) {
    super(
        "the request with key "
            + key.value()
            + " ran once, but its answer cannot be replayed: "
            + reason,
        false);
    this.key = key;
  }

  /** The key whose first answer was not kept. */
  public IdempotencyKey key() {
    return key;
  }
}
