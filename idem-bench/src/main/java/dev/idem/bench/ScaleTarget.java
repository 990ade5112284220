package dev.idem.bench;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.IdempotencyStore;

/**
 * A store of the scale benchmark, with the bulk operations that grow it fast: copies of one record
 * the store completed itself, under keys it can replay, written by the server in bulk rather than
 * one claim at a time.
 */
interface ScaleTarget extends AutoCloseable {

  /** The scope of every key the benchmark uses. */
  String SCOPE = "bench:orders:create";

  /** The outcome of the template record and of every measured completion. */
  byte[] RECEIPT = StoreScenarios.RECEIPT;

  /** What the report calls it. */
  String name();

  /** The store under measurement. */
  IdempotencyStore store();

  /**
   * Adds the completed records of keys {@code <prefix><from>} to {@code <prefix><to - 1>}, each a
   * copy of a record completed through the store with {@link #RECEIPT}; with {@code expired},
   * records whose retention has already ended.
   */
  void fill(String prefix, long from, long to, boolean expired) throws Exception;

  /**
   * The bytes one completed record with an outcome of {@code outcomeBytes} random bytes takes, as
   * the server counts them, over {@code records} copies in a table or key prefix of its own.
   */
  double bytesPerRecord(int outcomeBytes, int records) throws Exception;

  /**
   * Deletes up to {@code limit} expired records, as the application's purge job does, and returns
   * how many it deleted; -1 when the server expires records itself (Redis).
   */
  int purge(int limit);

  /** The key of a filled record. */
  static IdempotencyKey key(String prefix, long i) {
    return IdempotencyKey.of(SCOPE, prefix + i);
  }
}
