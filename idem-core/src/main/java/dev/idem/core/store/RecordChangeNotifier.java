package dev.idem.core.store;

import dev.idem.core.IdempotencyKey;

/**
 * Implemented by stores that can tell a waiter when the record of a key is completed, released or
 * removed, so that a duplicate in WAIT mode wakes at once instead of polling.
 */
public interface RecordChangeNotifier {

  /**
   * Calls {@code listener} at most once, on some thread, after the next change of the key's record.
   * A lease that merely runs out is not a change: waiters must also wake by time.
   *
   * @return a handle that stops the subscription; closing it twice is harmless
   */
  Subscription onChange(IdempotencyKey key, Runnable listener);

  /** An active subscription. */
  interface Subscription extends AutoCloseable {
    @Override
    void close();
  }
}
