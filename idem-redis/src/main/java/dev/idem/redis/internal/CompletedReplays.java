package dev.idem.redis.internal;

import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * Answers the claim of a key this store has seen completed with one plain {@code GET} of the record
 * instead of a claim. A completed record never changes until it expires (only a claim of an expired
 * record, an operator's eviction, or an outside {@code DEL}, can replace it), and a value that
 * Redis still returns has not expired, since every record's key expires at its logical end. So a
 * read that finds the record COMPLETED is what the claim script would have answered, fingerprint
 * check included; anything else (absent, in progress, issued) goes on to the claim as before. The
 * one difference is the millisecond in which the record ends: Redis still returns the value then,
 * where the script takes the record as ended, so the read answers Completed one millisecond longer.
 *
 * <p>Which digests were completed, and until about when, is kept in a fixed table of {@value
 * #SLOTS} hints taken two by two. A digest may sit in either slot of its pair. A new digest takes
 * an empty or ended slot of its pair first, else the slot that was used less recently, so two
 * digests that keep being replayed share a pair instead of pushing each other out while an idle one
 * keeps the other slot. Redis stays the only source of the answer: a hint that is wrong (the record
 * was deleted in Redis), or lost or replaced by a race between threads, costs one extra read, never
 * a wrong reply.
 */
public final class CompletedReplays {

  static final int SLOTS = 8192;

  private record Hint(String digest, long expiresAtMillis) {}

  private final RedisStringAsyncCommands<byte[], byte[]> strings;
  private final Clock clock;
  private final AtomicReferenceArray<@Nullable Hint> hints = new AtomicReferenceArray<>(SLOTS);

  // Per pair, which of its two slots was used last (0 or 1). Plain racy writes are enough: a lost
  // update only picks the other slot to replace.
  private final byte[] recent = new byte[SLOTS / 2];

  public CompletedReplays(RedisStringAsyncCommands<byte[], byte[]> strings, Clock clock) {
    this.strings = strings;
    this.clock = clock;
  }

  /** Notes that the record of {@code digest} is completed until about {@code expiresAtMillis}. */
  public void remember(String digest, long expiresAtMillis) {
    remember(digest, expiresAtMillis, clock.millis());
  }

  /**
   * The claim's answer read from the record; null when there is no hint for the key (then nothing
   * is sent), or the record turned out not to be completed: then the caller runs the claim script.
   */
  public CompletableFuture<ClaimResult> replay(byte[] recordKey, ClaimRequest request) {
    if (request.requireIssued()) {
      return CompletableFuture.completedFuture(null);
    }
    String digest = request.key().digest();
    int slot = find(digest, clock.millis());
    if (slot < 0) {
      return CompletableFuture.completedFuture(null);
    }
    return ScriptRunner.sent(() -> strings.get(recordKey))
        .exceptionallyCompose(
            failure -> CompletableFuture.failedFuture(ScriptRunner.failed(failure)))
        .thenApply(
            value -> {
              ClaimResult answer = value == null ? null : RecordValue.completed(value, request);
              if (answer == null) {
                forget(slot, digest);
              }
              return answer;
            });
  }

  // Notes that digest is completed until about expiresAtMillis.
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

  private static boolean holds(@Nullable Hint hint, String digest) {
    return hint != null && hint.digest().equals(digest);
  }

  private static boolean free(@Nullable Hint hint, long nowMillis) {
    return hint == null || hint.expiresAtMillis() <= nowMillis;
  }
}
