package dev.idem.core;

import dev.idem.core.store.ClaimResult;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Set;

/**
 * What a request looked like, reduced to a SHA-256 digest, so that a key re-sent with another
 * payload can be told apart from a true repeat ({@link ClaimResult.Mismatch}).
 *
 * <p>{@link #NONE} means "not checked": a claim with it matches any stored fingerprint, and a
 * record stored with it matches any claim.
 *
 * @param value lowercase hex SHA-256, or the empty string for {@link #NONE}
 */
public record Fingerprint(String value) {

  /** No fingerprint: payloads are not compared. */
  public static final Fingerprint NONE = new Fingerprint("");

  /**
   * @throws IllegalArgumentException unless {@code value} is empty or 64 lowercase hex digits
   */
  public Fingerprint {
    if (value == null || !(value.isEmpty() || isDigest(value))) {
      throw new IllegalArgumentException("a fingerprint is 64 lowercase hex digits or empty");
    }
  }

  private static boolean isDigest(String value) {
    if (value.length() != 64) {
      return false;
    }
    for (int i = 0; i < 64; i++) {
      char c = value.charAt(i);
      if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  /**
   * The digest of the given parts. Each part is preceded by its length, so {@code of("ab", "c")}
   * and {@code of("a", "bc")} differ.
   */
  public static Fingerprint of(String... parts) {
    MessageDigest sha = IdempotencyKey.sha256();
    for (String part : parts) {
      update(sha, part.getBytes(StandardCharsets.UTF_8));
    }
    return new Fingerprint(HexFormat.of().formatHex(sha.digest()));
  }

  /** The digest of a prefix (such as method and route) followed by raw body bytes. */
  public static Fingerprint of(String prefix, byte[] body) {
    MessageDigest sha = IdempotencyKey.sha256();
    update(sha, prefix.getBytes(StandardCharsets.UTF_8));
    update(sha, body);
    return new Fingerprint(HexFormat.of().formatHex(sha.digest()));
  }

  /**
   * The digest of a prefix and a JSON document in its {@linkplain CanonicalJson canonical form}, so
   * that key order, white space and number spelling do not change it.
   *
   * @throws MalformedJsonException when {@code json} is not valid JSON
   */
  public static Fingerprint ofJson(String prefix, String json) {
    return of(prefix, CanonicalJson.canonicalize(json));
  }

  /**
   * As {@link #ofJson(String, String)}, leaving out the members named by {@code excludedPaths}
   * (such as a client's timestamp or trace id), so that a repeat differing only in them is the same
   * request. See {@link CanonicalJson#canonicalize(String, Set)} for how paths are written.
   *
   * @throws MalformedJsonException when {@code json} is not valid JSON
   */
  public static Fingerprint ofJson(String prefix, String json, Set<String> excludedPaths) {
    return of(prefix, CanonicalJson.canonicalize(json, excludedPaths));
  }

  /** True for {@link #NONE}. */
  public boolean isNone() {
    return value.isEmpty();
  }

  /** True unless both fingerprints are set and differ. */
  public boolean matches(Fingerprint other) {
    return isNone() || other.isNone() || value.equals(other.value);
  }

  private static void update(MessageDigest sha, byte[] bytes) {
    sha.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
    sha.update((byte) ':');
    sha.update(bytes);
  }

  @Override
  public String toString() {
    return isNone() ? "none" : value.substring(0, 12);
  }
}
