package dev.idem.redis.internal;

import dev.idem.core.ClaimRequest;
import dev.idem.core.ClaimResult;
import dev.idem.core.IdempotencyStoreException;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisHashCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Answers the claim of a key this store has seen completed with one plain {@code HMGET} instead of
 * the claim script. A completed record never changes until it expires (only {@code CLAIM} of an
 * expired record, or an outside {@code DEL}, can replace it), and a hash that Redis still returns
 * has not expired, since every record's hash expires at its logical end. So a read that finds the
 * record COMPLETED is exactly what the script would have answered, fingerprint check included;
 * anything else (absent, in progress, issued) goes to the script as before.
 *
 * <p>The hints are only which digests were completed, and until about when, in a fixed table where
 * a newer digest overwrites an older one in the same slot. Redis stays the only source of the
 * answer: a hint that is wrong (the record was deleted, or the slot was reused) costs one extra
 * read, never a wrong reply.
 */
public final class CompletedReplays {

  private static final int SLOTS = 8192;

  // The fields of RecordReplies' record reply after its code, in that order.
  private static final byte[][] FIELDS = {
    RedisKeys.bytes("st"),
    RedisKeys.bytes("fp"),
    RedisKeys.bytes("f"),
    RedisKeys.bytes("lu"),
    RedisKeys.bytes("ex"),
    RedisKeys.bytes("t"),
    RedisKeys.bytes("ok"),
    RedisKeys.bytes("out")
  };

  private record Hint(String digest, long expiresAtMillis) {}

  private final RedisHashCommands<byte[], byte[]> hashes;
  private final AtomicReferenceArray<Hint> hints = new AtomicReferenceArray<>(SLOTS);

  public CompletedReplays(RedisHashCommands<byte[], byte[]> hashes) {
    this.hashes = hashes;
  }

  /** Notes that the record of {@code digest} is completed until about {@code expiresAtMillis}. */
  public void remember(String digest, long expiresAtMillis) {
    hints.set(slot(digest), new Hint(digest, expiresAtMillis));
  }

  /**
   * The claim's answer read from the record's hash, or null when there is no hint for the key, or
   * the record turned out not to be completed: then the caller runs the claim script.
   */
  public ClaimResult replay(byte[] recordKey, ClaimRequest request) {
    String digest = request.key().digest();
    int slot = slot(digest);
    Hint hint = hints.get(slot);
    if (request.requireIssued()
        || hint == null
        || !hint.digest().equals(digest)
        || hint.expiresAtMillis() <= System.currentTimeMillis()) {
      return null;
    }
    List<KeyValue<byte[], byte[]>> fields;
    try {
      fields = hashes.hmget(recordKey, FIELDS);
    } catch (RedisException e) {
      throw new IdempotencyStoreException("Redis call failed: " + e.getMessage(), e);
    }
    List<Object> reply = new ArrayList<>(FIELDS.length + 1);
    reply.add(null);
    for (KeyValue<byte[], byte[]> field : fields) {
      reply.add(field.getValueOrElse(null));
    }
    if (!"C".equals(text(reply.get(1)))) {
      hints.compareAndSet(slot, hint, null);
      return null;
    }
    // The claim script's rule: a record or a claim without a fingerprint matches any.
    String stored = text(reply.get(2));
    String asked = request.fingerprint().value();
    boolean same = asked.isEmpty() || stored.isEmpty() || stored.equals(asked);
    reply.set(0, RedisKeys.bytes(same ? "D" : "M"));
    return RecordReplies.claim(reply, request.key(), null);
  }

  private static int slot(String digest) {
    return digest.hashCode() & (SLOTS - 1);
  }

  private static String text(Object o) {
    return o == null ? "" : new String((byte[]) o, StandardCharsets.UTF_8);
  }
}
