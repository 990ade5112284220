package dev.idem.core;

/** How one call through the engine ended; what metrics and listeners see. */
public enum ExecutionOutcome {
  /** The work ran (and its outcome was stored, or the key released). */
  EXECUTED,
  /** A stored outcome was returned. */
  REPLAYED,
  /** Refused: the first request is still running. */
  IN_PROGRESS,
  /** Refused: the key was used with another payload. */
  MISMATCH,
  /** Refused: the key is not valid. */
  INVALID_KEY,
  /** Refused: the token is not known. */
  UNKNOWN_TOKEN,
  /** The work ran but its lease was taken over before it could store the outcome. */
  LEASE_LOST,
  /** The store failed. */
  STORE_ERROR,
  /**
   * The claim was refused because the store, or the call's scope under its cap, holds as many live
   * records as it may ({@link StoreFullException}): the work did not run.
   */
  STORE_FULL
}
