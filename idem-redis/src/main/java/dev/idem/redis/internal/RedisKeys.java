package dev.idem.redis.internal;

import dev.idem.core.IdempotencyKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Names of the Redis keys and channels of one store or lock provider. Every key is {@code
 * <prefix>...{<sha-256 hex>}}: only the digest is inside the braces, so it is the Cluster hash tag
 * and a record's key sits in one slot, while no byte of the caller's text reaches key syntax.
 */
public final class RedisKeys {

  /** The prefix used when none is given. */
  public static final String DEFAULT_PREFIX = "idem:";

  // Lua numbers are doubles: 10^15 ms (about 31 000 years) keeps every sum exact.
  private static final long MAX_MILLIS = 1_000_000_000_000_000L;

  private final String prefix;

  /**
   * @param prefix put in front of every key and channel; must not contain braces, which would move
   *     the Cluster hash tag into the prefix and put every record into one slot
   */
  public RedisKeys(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException("key prefix must not contain '{' or '}': " + prefix);
    }
    this.prefix = prefix;
  }

  /**
   * The string value of one record. A step's record sits beside its root's, under the root's digest
   * as the hash tag: a key and its steps share one Cluster slot.
   */
  public byte[] record(IdempotencyKey key) {
    return bytes(recordName(key));
  }

  private String recordName(IdempotencyKey key) {
    return key.isStep()
        ? prefix + "{" + key.root().digest() + "}:step:" + key.digest()
        : prefix + "{" + key.digest() + "}";
  }

  /**
   * The mark that the claim of {@code owner} on the record of {@code key} was given back, in the
   * record's Cluster slot.
   */
  public byte[] givenBack(IdempotencyKey key, String owner) {
    return bytes(recordName(key) + ":given-back:" + owner);
  }

  /**
   * A {@code SCAN} pattern that matches the records of every step of {@code root} (and their
   * given-back marks), and nothing else: the prefix's glob characters are escaped.
   */
  public byte[] stepsOf(IdempotencyKey root) {
    StringBuilder glob = new StringBuilder();
    for (char c : prefix.toCharArray()) {
      if ("*?[]\\".indexOf(c) >= 0) {
        glob.append('\\');
      }
      glob.append(c);
    }
    return bytes(glob + "{" + root.digest() + "}:step:*");
  }

  /** The tally of one scope's live records (see {@link LuaScripts#TALLY_ADD}), by its digest. */
  public byte[] tally(String scopeDigest) {
    return bytes(prefix + "scope:{" + scopeDigest + "}");
  }

  /**
   * The keys of one lock, by the digest of its name: lease, fence counter and waiter mark, in that
   * order, all in one Cluster slot.
   */
  public byte[][] lock(String nameDigest) {
    String base = prefix + "lock:{" + nameDigest + "}:";
    return new byte[][] {bytes(base + "lease"), bytes(base + "fence"), bytes(base + "waits")};
  }

  /**
   * The keys of one operation's resume log, by the digest of the operation's name: its due set, its
   * abandoned set, and the prefix of its entries' keys (followed by an entry's id), all in one
   * Cluster slot.
   */
  public byte[][] resumeLog(String operationDigest) {
    String base = prefix + "resume:{" + operationDigest + "}:";
    return new byte[][] {bytes(base + "due"), bytes(base + "abandoned"), bytes(base + "e:")};
  }

  /** The channel that carries the digests of records that changed while someone waited. */
  public byte[] changeChannel() {
    return bytes(prefix + "changes");
  }

  /** The channel that carries the digests of released locks that someone waited for. */
  public byte[] lockChannel() {
    return bytes(prefix + "lock-released");
  }

  /** The lowercase hex SHA-256 of a lock name. */
  public static String digest(String name) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(name.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** {@code d} in whole milliseconds (at least 1), capped where Lua arithmetic stays exact. */
  public static long millis(Duration d) {
    if (d.compareTo(Duration.ofMillis(MAX_MILLIS)) > 0) {
      return MAX_MILLIS;
    }
    return Math.max(1, d.toMillis());
  }

  /** UTF-8 bytes. */
  public static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The decimal form of {@code n} as bytes, as Redis arguments carry numbers. */
  public static byte[] bytes(long n) {
    return bytes(Long.toString(n));
  }
}
