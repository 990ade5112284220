package dev.idem.core.store;

/** The answer of {@link IdempotencyStore#claim}: normal outcomes are values, not exceptions. */
public sealed interface ClaimResult {

  /** The caller now owns the key and must run the work, then complete or release. */
  record Claimed(Lease lease) implements ClaimResult {}

  /** Another owner holds an unexpired lease. */
  record InProgress(IdempotencyRecord record) implements ClaimResult {}

  /** The outcome is stored; replay it. */
  record Completed(IdempotencyRecord record) implements ClaimResult {}

  /** The key is in use with a different fingerprint: a client bug, never a repeat. */
  record Mismatch(IdempotencyRecord record) implements ClaimResult {}

  /** A token claim found no issued token (never issued, expired, or forged). */
  record UnknownToken() implements ClaimResult {}
}
