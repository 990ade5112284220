package dev.idem.core.store;

/** The states of a stored record; an absent record has no state. See docs/core.md, "The record". */
public enum RecordState {
  /** A token the server handed out and nobody has used yet. */
  ISSUED,
  /** One owner holds a lease and is running the work. */
  IN_PROGRESS,
  /** The outcome is stored and every repeat gets it back. */
  COMPLETED
}
