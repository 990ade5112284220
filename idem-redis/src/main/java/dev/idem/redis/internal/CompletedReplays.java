package dev.idem.redis.internal;

import dev.idem.core.ClaimRequest;
import dev.idem.core.ClaimResult;
import dev.idem.core.IdempotencyStoreException;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisStringCommands;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Answers the claim of a key this store has seen completed with one plain {@code GET} of the record
 * instead of a claim. A completed record never changes until it expires (only a claim of an expired
 * record, or an outside {@code DEL}, can replace it), and a value that Redis still returns has not
 * expired, since every record's key expires at its logical end. So a read that finds the record
 * COMPLETED is what the claim script would have answered, fingerprint check included; anything else
 * (absent, in progress, issued) goes on to the claim as before. The one difference is the
 * millisecond in which the record ends: Redis still returns the value then, where the script takes
 * the record as ended, so the read answers Completed one millisecond longer.
 *
 * <p>The hints are only which digests were completed, and until about when, in a fixed table of
 * 8192 slots taken two by two: a digest may sit in either slot of its pair, and a newer one
 * replaces the hint that ends first. Redis stays the only source of the answer: a hint that is
 * wrong (the record was deleted in Redis) costs one extra read, never a wrong reply.
 */
public final class CompletedReplays {

  private static final int SLOTS = 8192;

  private record Hint(String digest, long expiresAtMillis) {}

  private final RedisStringCommands<byte[], byte[]> strings;
  private final AtomicReferenceArray<Hint> hints = new AtomicReferenceArray<>(SLOTS);

  public CompletedReplays(RedisStringCommands<byte[], byte[]> strings) {
    this.strings = strings;
  }

  /** Notes that the record of {@code digest} is completed until about {@code expiresAtMillis}. */
  public void remember(String digest, long expiresAtMillis) {
    int first = pair(digest);
    Hint a = hints.get(first);
    Hint b = hints.get(first + 1);
    int slot;
    if (a == null || a.digest().equals(digest)) {
      slot = first;
    } else if (b == null || b.digest().equals(digest)) {
      slot = first + 1;
    } else {
      slot = a.expiresAtMillis() <= b.expiresAtMillis() ? first : first + 1;
    }
    hints.set(slot, new Hint(digest, expiresAtMillis));
  }

  /**
   * The claim's answer read from the record, or null when there is no hint for the key, or the
   * record turned out not to be completed: then the caller runs the claim script.
   */
  public ClaimResult replay(byte[] recordKey, ClaimRequest request) {
    if (request.requireIssued()) {
      return null;
    }
    String digest = request.key().digest();
    int slot = pair(digest);
    Hint hint = hints.get(slot);
    if (hint == null || !hint.digest().equals(digest)) {
      slot++;
      hint = hints.get(slot);
    }
    if (hint == null
        || !hint.digest().equals(digest)
        || hint.expiresAtMillis() <= System.currentTimeMillis()) {
      return null;
    }
    byte[] value;
    try {
      value = strings.get(recordKey);
    } catch (RedisException e) {
      throw new IdempotencyStoreException("Redis call failed: " + e.getMessage(), e);
    }
    ClaimResult answer =
        value == null ? null : RecordReplies.completed(value, request.key(), request.fingerprint());
    if (answer == null) {
      hints.compareAndSet(slot, hint, null);
    }
    return answer;
  }

  // The first slot of the digest's pair.
  private static int pair(String digest) {
    return digest.hashCode() & (SLOTS - 2);
  }
}
