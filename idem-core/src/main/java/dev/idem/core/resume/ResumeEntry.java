package dev.idem.core.resume;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import java.util.Arrays;
import java.util.Objects;

/**
 * One resumable call in a {@link ResumeLog}: the operation that runs it, the key and fingerprint it
 * was claimed under, the encoded input to run it with again, and how often a completer has tried.
 *
 * @param operation the name the operation was registered under with its {@link Completer}
 * @param key the call's key; never a step key
 * @param fingerprint the request's fingerprint, the one the key was claimed with
 * @param input the input as the operation's input codec encoded it
 * @param attempts the completer's failed attempts so far
 * @param abandoned true once the completer gave the call up; only an operator takes it back
 */
public record ResumeEntry(
    String operation,
    IdempotencyKey key,
    Fingerprint fingerprint,
    byte[] input,
    int attempts,
    boolean abandoned) {

  public ResumeEntry {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(input, "input");
    if (key.isStep()) {
      throw new IllegalArgumentException("a step is resumed with its call, not alone: " + key);
    }
    if (attempts < 0) {
      throw new IllegalArgumentException("attempts must not be negative, was " + attempts);
    }
  }

  /** A call not tried by a completer yet. */
  public static ResumeEntry of(
      String operation, IdempotencyKey key, Fingerprint fingerprint, byte[] input) {
    return new ResumeEntry(operation, key, fingerprint, input, 0, false);
  }

  /**
   * The entry's identity within its operation: its key's digest. One key has one entry: the request
   * that holds the key writes it, and a later request that claims the key after it was given up
   * writes over it, so a completer runs only the latest request, never one whose key another
   * request has taken since. Every change but that one names the fingerprint too.
   */
  public String id() {
    return key.digest();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ResumeEntry other
        && operation.equals(other.operation)
        && key.equals(other.key)
        && fingerprint.equals(other.fingerprint)
        && Arrays.equals(input, other.input)
        && attempts == other.attempts
        && abandoned == other.abandoned;
  }

  @Override
  public int hashCode() {
    return Objects.hash(operation, key, fingerprint, Arrays.hashCode(input), attempts, abandoned);
  }

  @Override
  public String toString() {
    return "ResumeEntry["
        + operation
        + ", "
        + key
        + ", attempts="
        + attempts
        + (abandoned ? ", abandoned" : "")
        + "]";
  }
}
