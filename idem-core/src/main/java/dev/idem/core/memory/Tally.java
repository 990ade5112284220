package dev.idem.core.memory;

import dev.idem.core.IdempotencyKey;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the in-memory store holds, counted as records change: the keys of each scope, with the
 * earliest end among them, and bytes in all. Expired records not yet swept still count, as they
 * still take memory; a scope at its cap is swept by itself once one of its records may have ended.
 */
final class Tally {

  // A record's own fields, its key and its map entry, roughly, besides its outcome.
  private static final int RECORD_OVERHEAD = 256;

  /** The keys held under one scope and the earliest end any of them may have. */
  static final class Scope {
    final Set<IdempotencyKey> keys = ConcurrentHashMap.newKeySet();
    volatile Instant earliestEnd = Instant.MAX;

    void ends(Instant end) {
      if (end.isBefore(earliestEnd)) {
        earliestEnd = end;
      }
    }
  }

  private final ConcurrentMap<String, Scope> perScope = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();

  /**
   * Counts the change of one key's record from {@code before} to {@code after} (null: none). Called
   * inside the map's atomic step for that key.
   */
  void changed(StoredRecord before, StoredRecord after) {
    bytes.addAndGet(size(after) - size(before));
    if (after != null) {
      IdempotencyKey key = after.record().key();
      perScope.compute(
          key.scope(),
          (s, scope) -> {
            Scope held = scope == null ? new Scope() : scope;
            held.keys.add(key);
            held.ends(after.record().expiresAt());
            return held;
          });
    } else if (before != null) {
      IdempotencyKey key = before.record().key();
      perScope.computeIfPresent(
          key.scope(),
          (s, scope) -> {
            scope.keys.remove(key);
            return scope.keys.isEmpty() ? null : scope;
          });
    }
  }

  /** Records held under {@code scope}. */
  long records(String scope) {
    Scope held = perScope.get(scope);
    return held == null ? 0 : held.keys.size();
  }

  /** The keys of {@code scope}, or null when it holds none. */
  Scope scope(String scope) {
    return perScope.get(scope);
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
}
