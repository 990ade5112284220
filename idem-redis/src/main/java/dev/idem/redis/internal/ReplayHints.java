package dev.idem.redis.internal;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Which record digests this process has seen completed, and until about when: a fixed table of
 * {@value #SLOTS} slots taken two by two. A digest may sit in either slot of its pair. A new digest
 * takes an empty or ended slot of its pair first, else the slot that was used less recently, so two
 * digests that keep being replayed share a pair instead of pushing each other out while an idle one
 * keeps the other slot.
 *
 * <p>A hint is only a guess at what Redis holds, so races between threads may lose or replace one
 * hint with another; they never make a reply wrong (see {@link CompletedReplays}).
 */
final class ReplayHints {

  static final int SLOTS = 8192;

  private record Hint(String digest, long expiresAtMillis) {}

  private final AtomicReferenceArray<Hint> hints = new AtomicReferenceArray<>(SLOTS);

  // Per pair, which of its two slots was used last (0 or 1). Plain racy writes are enough: a lost
  // update only picks the other slot to replace.
  private final byte[] recent = new byte[SLOTS / 2];

  /** Notes that {@code digest} is completed until about {@code expiresAtMillis}. */
  void remember(String digest, long expiresAtMillis, long nowMillis) {
    int first = pair(digest);
    Hint a = hints.get(first);
    Hint b = hints.get(first + 1);
    int slot;
    if (holds(a, digest)) {
      slot = first;
    } else if (holds(b, digest)) {
      slot = first + 1;
    } else if (free(a, nowMillis)) {
      slot = first;
    } else if (free(b, nowMillis)) {
      slot = first + 1;
    } else {
      slot = first + 1 - recent[first / 2];
    }
    hints.set(slot, new Hint(digest, expiresAtMillis));
    markUsed(first, slot);
  }

  /** The slot of a hint that {@code digest} is completed and has not ended, or -1. */
  int find(String digest, long nowMillis) {
    int first = pair(digest);
    for (int slot = first; slot <= first + 1; slot++) {
      Hint hint = hints.get(slot);
      if (holds(hint, digest)) {
        if (free(hint, nowMillis)) {
          return -1;
        }
        markUsed(first, slot);
        return slot;
      }
    }
    return -1;
  }

  /** Drops the hint in {@code slot} if it is still the one of {@code digest}. */
  void forget(int slot, String digest) {
    Hint hint = hints.get(slot);
    if (holds(hint, digest)) {
      hints.compareAndSet(slot, hint, null);
    }
  }

  // Written only on a change, so that threads replaying the same keys do not keep writing the same
  // cache line.
  private void markUsed(int first, int slot) {
    byte used = (byte) (slot - first);
    if (recent[first / 2] != used) {
      recent[first / 2] = used;
    }
  }

  // The first slot of the digest's pair.
  static int pair(String digest) {
    return digest.hashCode() & (SLOTS - 2);
  }

  private static boolean holds(Hint hint, String digest) {
    return hint != null && hint.digest().equals(digest);
  }

  private static boolean free(Hint hint, long nowMillis) {
    return hint == null || hint.expiresAtMillis() <= nowMillis;
  }
}
