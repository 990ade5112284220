package dev.idem.core.memory;

import dev.idem.core.IdempotencyKey;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

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
  // What each caller holds across its scopes: records and bytes.
  private final ConcurrentMap<String, long[]> perCaller = new ConcurrentHashMap<>();

  /**
   * Counts the change of one key's record from {@code before} to {@code after} (null: none). Called
   * inside the map's atomic step for that key.
   */
  void changed(@Nullable StoredRecord before, @Nullable StoredRecord after) {
    bytes.addAndGet(size(after) - size(before));
    if (before != null) {
      count(before, -1);
    }
    if (after != null) {
      count(after, 1);
    }
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

  private void count(StoredRecord r, int sign) {
    String caller = caller(r.record().key().scope());
    if (caller == null) {
      return;
    }
    long size = size(r);
    perCaller.compute(
        caller,
        (c, held) -> {
          long[] next = held == null ? new long[2] : held;
          next[0] += sign;
          next[1] += sign * size;
          return next[0] == 0 ? null : next;
        });
  }

  /**
   * The caller a scope belongs to: what follows the first {@code |} of {@code operation|caller}
   * (see {@link IdempotencyKey#scope(String, String)}), or null when it names none. An operation
   * whose name holds a {@code |} only splits its callers' shares further.
   */
  static @Nullable String caller(String scope) {
    int bar = scope.indexOf('|');
    return bar < 0 ? null : scope.substring(bar + 1);
  }

  /** Records held by {@code caller} across its scopes. */
  long callerRecords(String caller) {
    long[] held = perCaller.get(caller);
    return held == null ? 0 : held[0];
  }

  /** Bytes held by {@code caller} across its scopes, estimated. */
  long callerBytes(String caller) {
    long[] held = perCaller.get(caller);
    return held == null ? 0 : held[1];
  }

  /** Records held under {@code scope}. */
  long records(String scope) {
    Scope held = perScope.get(scope);
    return held == null ? 0 : held.keys.size();
  }

  /** The keys of {@code scope}, or null when it holds none. */
  @Nullable Scope scope(String scope) {
    return perScope.get(scope);
  }

  /** Bytes held in all, estimated. */
  long bytes() {
    return bytes.get();
  }

  static long size(@Nullable StoredRecord r) {
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
