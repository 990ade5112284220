package dev.idem.core;

/** Optional abilities of an {@link IdempotencyStore}, as reported by its {@code capabilities()}. */
public enum StoreCapability {
  /** Several processes can share the storage, so a crashed process's lease can be taken over. */
  SHARED_BETWEEN_PROCESSES,
  /** The store tells waiters when a record changes, through its {@code onChange}. */
  CHANGE_NOTIFICATION,
  /**
   * The store can write in the caller's transaction; {@link
   * IdempotencyStore#joinsCurrentTransaction} says whether it does for a call made now.
   */
  JOINS_TRANSACTIONS,
  /**
   * {@link IdempotencyStore#claimAsync} sends the claim without blocking the calling thread and
   * ends its stage when the storage answers, so an asynchronous call holds no thread while its
   * claim is on the wire.
   */
  NON_BLOCKING_CLAIM,
  /**
   * {@link IdempotencyStore#completeAsync} and {@link IdempotencyStore#releaseAsync} send without
   * blocking the calling thread and end their stages when the storage answers, so an asynchronous
   * call holds no thread while its outcome is on the wire.
   */
  NON_BLOCKING_SETTLEMENT
}
