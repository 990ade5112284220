package dev.idem.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The name of one operation attempt: a {@code scope} (the operation plus the caller's identity,
 * such as {@code "orders:create:alice"}) and a {@code value} chosen by the client or issued as a
 * token.
 *
 * <p>Two keys with the same value and different scopes are unrelated, so two callers never see each
 * other's records. Stores index {@link #digest()}, never the raw text, so the content of a key can
 * never reach SQL text or Redis key syntax.
 *
 * @param scope 1..512 characters, any content except control characters
 * @param value 1..255 visible ASCII characters ({@code '!'} to {@code '~'})
 */
public record IdempotencyKey(String scope, String value) {

  /** The longest value accepted, as in the IETF Idempotency-Key draft and Stripe. */
  public static final int MAX_VALUE_LENGTH = 255;

  /** The longest scope accepted. */
  public static final int MAX_SCOPE_LENGTH = 512;

  /**
   * Checks both parts.
   *
   * @throws InvalidKeyException when a part is null, empty, too long or holds disallowed characters
   */
  public IdempotencyKey {
    checkScope(scope);
    checkValue(value);
  }

  /** Same as the constructor; reads better at call sites. */
  public static IdempotencyKey of(String scope, String value) {
    return new IdempotencyKey(scope, value);
  }

  /** True when {@code value} would be accepted as a key value. */
  public static boolean isValidValue(String value) {
    if (value == null || value.isEmpty() || value.length() > MAX_VALUE_LENGTH) {
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '!' || c > '~') {
        return false;
      }
    }
    return true;
  }

  /**
   * The lowercase hex SHA-256 of the scope and the value, each preceded by its length so that no
   * two different keys share a digest input. This is what stores use as the record's identity.
   */
  public String digest() {
    MessageDigest sha = sha256();
    byte[] scopeBytes = scope.getBytes(StandardCharsets.UTF_8);
    sha.update(Integer.toString(scopeBytes.length).getBytes(StandardCharsets.US_ASCII));
    sha.update((byte) ':');
    sha.update(scopeBytes);
    sha.update((byte) ':');
    sha.update(value.getBytes(StandardCharsets.US_ASCII));
    return HexFormat.of().formatHex(sha.digest());
  }

  @Override
  public String toString() {
    return scope + "/" + value;
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  private static void checkScope(String scope) {
    if (scope == null || scope.isEmpty()) {
      throw new InvalidKeyException("idempotency key scope must not be empty");
    }
    if (scope.length() > MAX_SCOPE_LENGTH) {
      throw new InvalidKeyException(
          "idempotency key scope is "
              + scope.length()
              + " characters; at most "
              + MAX_SCOPE_LENGTH);
    }
    for (int i = 0; i < scope.length(); i++) {
      if (Character.isISOControl(scope.charAt(i))) {
        throw new InvalidKeyException("idempotency key scope holds a control character");
      }
    }
  }

  private static void checkValue(String value) {
    if (value == null) {
      throw InvalidKeyException.missing("idempotency key is missing");
    }
    if (value.isEmpty()) {
      throw new InvalidKeyException("idempotency key must not be empty");
    }
    if (value.length() > MAX_VALUE_LENGTH) {
      throw new InvalidKeyException(
          "idempotency key is " + value.length() + " characters; at most " + MAX_VALUE_LENGTH);
    }
    if (!isValidValue(value)) {
      throw new InvalidKeyException(
          "idempotency key may hold only visible ASCII characters ('!' to '~')");
    }
  }
}
