package dev.idem.core;

/**
 * The work finished but its lease had been taken over by another owner, so its result was not
 * stored. Another execution may have run too: guard writes with the fence to make that harmless.
 */
public class LeaseLostException extends IdempotencyException {

  public LeaseLostException(String message) {
    super(message);
  }
}
