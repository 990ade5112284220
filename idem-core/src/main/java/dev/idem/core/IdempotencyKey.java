package dev.idem.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The name of one operation attempt: a {@code scope} (the operation plus the caller's identity,
 * such as {@code "orders:create:alice"}) and a {@code value} chosen by the client or issued as a
 * token.
 *
 * <p>Two keys with the same value and different scopes are unrelated, so two callers never see each
 * other's records. Stores index {@link #digest()}, never the raw text, so the content of a key can
 * never reach SQL text or Redis key syntax.
 *
 * <p>A value object: two keys are equal when scope and value are, and for steps when their paths
 * and digests are too. The scope is 1..512 characters of any content but control characters; the
 * value is 1..255 visible ASCII characters ({@code '!'} to {@code '~'}). A class rather than a
 * record only so that it can keep its digest.
 *
 * <p>A key may name a <em>step</em> of another: {@link #step(String, Fingerprint)} gives the key
 * under which work running for this key and request keeps the result of one of its steps (the
 * engine's steps are keyed so; {@link #step(String)} is the same for no request). A step key has
 * its root's scope and value, so it belongs to the same caller and operation, and a {@link
 * #digest()} no key made from a scope and a value can have.
 */
public final class IdempotencyKey {

  /** The longest value accepted, as in the IETF Idempotency-Key draft and Stripe. */
  public static final int MAX_VALUE_LENGTH = 255;

  /** The longest scope accepted. */
  public static final int MAX_SCOPE_LENGTH = 512;

  /** The longest step name accepted. */
  public static final int MAX_STEP_NAME_LENGTH = 100;

  /** The deepest steps nest. */
  public static final int MAX_STEP_DEPTH = 8;

  private final String scope;
  private final String value;
  // the names of the steps from the root, joined by '/'; null for a root key
  private final @Nullable String step;
  // for a step: the key it is a step of, and the request (fingerprint) of the work it is a step of
  private final @Nullable IdempotencyKey parent;
  private final String binding;
  // Computed on first use; a race only computes the same string twice.
  private @Nullable String digest;

  /**
   * Checks both parts.
   *
   * @throws InvalidKeyException when a part is null, empty, too long or holds disallowed characters
   */
  public IdempotencyKey(String scope, String value) {
    checkScope(scope);
    checkValue(value);
    this.scope = scope;
    this.value = value;
    this.step = null;
    this.parent = null;
    this.binding = "";
  }

  private IdempotencyKey(IdempotencyKey parent, String name, String binding) {
    this.scope = parent.scope;
    this.value = parent.value;
    this.step = parent.step == null ? name : parent.step + "/" + name;
    this.parent = parent;
    this.binding = binding;
  }

  /** Same as the constructor; reads better at call sites. */
  public static IdempotencyKey of(String scope, String value) {
    return new IdempotencyKey(scope, value);
  }

  /**
   * The scope of one caller's use of one operation, {@code operation|caller}: how every part of
   * Idem names a caller's scope, so that the caps, tokens and records of one caller agree.
   */
  public static String scope(String operation, String caller) {
    return operation + "|" + caller;
  }

  /** The operation and caller this key belongs to. */
  public String scope() {
    return scope;
  }

  /** What the client sent, or the issued token. */
  public String value() {
    return value;
  }

  /**
   * The key of the step {@code name} of work running for this key, bound to no request ({@link
   * #step(String, Fingerprint)} with {@link Fingerprint#NONE}): the same on every run, so that a
   * rerun finds what the step stored. Steps nest: a step key's own steps have longer paths.
   *
   * @param name 1 to {@value #MAX_STEP_NAME_LENGTH} visible ASCII characters other than {@code
   *     '/'}; chosen by the application, not by a client
   * @throws IllegalArgumentException for another name, or past {@value #MAX_STEP_DEPTH} levels
   */
  public IdempotencyKey step(String name) {
    return step(name, Fingerprint.NONE);
  }

  /**
   * The key of the step {@code name} of work running for this key on the request {@code request}:
   * work for another request under the same key (a client that reused a released key with another
   * payload) has steps of its own, and never gets this request's. The engine's steps are bound so.
   *
   * @throws IllegalArgumentException as {@link #step(String)}
   */
  public IdempotencyKey step(String name, Fingerprint request) {
    if (name == null
        || name.length() > MAX_STEP_NAME_LENGTH
        || !isValidValue(name)
        || name.indexOf('/') >= 0) {
      throw new IllegalArgumentException(
          "a step name is 1 to "
              + MAX_STEP_NAME_LENGTH
              + " visible ASCII characters other than '/': "
              + name);
    }
    if (step != null && step.chars().filter(c -> c == '/').count() + 1 >= MAX_STEP_DEPTH) {
      throw new IllegalArgumentException(
          "steps nest at most " + MAX_STEP_DEPTH + " deep: " + step + "/" + name);
    }
    return new IdempotencyKey(this, name, request.value());
  }

  /** True for the key of a step ({@link #step(String)}). */
  public boolean isStep() {
    return step != null;
  }

  /** The names of the steps from the root key, joined by {@code '/'}; null for a root key. */
  public @Nullable String stepPath() {
    return step;
  }

  /** The key this key is a step of, through every level; the key itself when it is no step. */
  public IdempotencyKey root() {
    IdempotencyKey k = this;
    while (k.parent != null) {
      k = k.parent;
    }
    return k;
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
   * The lowercase hex SHA-256 of {@code <scope's UTF-8 byte length>:<scope>:<value>}: the scope's
   * length keeps two different keys from sharing a digest input (the value, the last part, needs
   * none). A step's key hashes its name and binding with its parent's digest instead. This is what
   * stores use as the record's identity.
   */
  public String digest() {
    String d = digest;
    if (d == null) {
      d = computeDigest();
      digest = d;
    }
    return d;
  }

  private String computeDigest() {
    MessageDigest sha = sha256();
    if (parent != null) {
      // starts with a letter where a root key's input starts with a digit: no root shares it
      String name = Objects.requireNonNull(step).substring(step.lastIndexOf('/') + 1);
      String input =
          "step:" + name.length() + ":" + name + ":" + binding.length() + ":" + binding + ":";
      sha.update(input.getBytes(StandardCharsets.UTF_8));
      sha.update(parent.digest().getBytes(StandardCharsets.US_ASCII));
      return HexFormat.of().formatHex(sha.digest());
    }
    byte[] scopeBytes = scope.getBytes(StandardCharsets.UTF_8);
    sha.update(Integer.toString(scopeBytes.length).getBytes(StandardCharsets.US_ASCII));
    sha.update((byte) ':');
    sha.update(scopeBytes);
    sha.update((byte) ':');
    sha.update(value.getBytes(StandardCharsets.US_ASCII));
    return HexFormat.of().formatHex(sha.digest());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IdempotencyKey other
        && scope.equals(other.scope)
        && value.equals(other.value)
        && Objects.equals(step, other.step)
        && (parent == null || digest().equals(other.digest()));
  }

  @Override
  public int hashCode() {
    return 31 * (31 * scope.hashCode() + value.hashCode()) + Objects.hashCode(step);
  }

  @Override
  public String toString() {
    return step == null ? scope + "/" + value : scope + "/" + value + "#" + step;
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
