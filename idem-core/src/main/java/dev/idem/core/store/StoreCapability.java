package dev.idem.core.store;

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
  JOINS_TRANSACTIONS
}
