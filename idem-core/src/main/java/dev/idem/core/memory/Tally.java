package dev.idem.core.memory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the in-memory store holds, counted as records change: records per scope and bytes in all.
 * Expired records not yet swept still count, as they still take memory.
 */
final class Tally {

  // A record's own fields, its key and its map entry, roughly, besides its outcome.
  private static final int RECORD_OVERHEAD = 256;

  private final ConcurrentMap<String, AtomicLong> perScope = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();

  /** Counts the change of one key's record from {@code before} to {@code after} (null: none). */
  void changed(StoredRecord before, StoredRecord after) {
    bytes.addAndGet(size(after) - size(before));
    if (before == null && after != null) {
      perScope.computeIfAbsent(scope(after), s -> new AtomicLong()).incrementAndGet();
    } else if (before != null && after == null) {
      perScope.computeIfPresent(scope(before), (s, n) -> n.decrementAndGet() <= 0 ? null : n);
    }
  }

  /** Records held under {@code scope}. */
  long records(String scope) {
    AtomicLong n = perScope.get(scope);
    return n == null ? 0 : n.get();
  }

  /** Bytes held in all, estimated. */
  long bytes() {
    return bytes.get();
  }

  static long size(StoredRecord r) {
    if (r == null) {
      return 0;
    }
    var key = r.record().key();
    var outcome = r.record().outcome();
    return RECORD_OVERHEAD
        + 2L * (key.scope().length() + key.value().length())
        + (outcome == null ? 0 : outcome.payload().length);
  }

  private static String scope(StoredRecord r) {
    return r.record().key().scope();
  }
}
