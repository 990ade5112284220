package dev.idem.core;

import java.util.Arrays;
import java.util.Objects;

/**
 * The stored result of a completed operation: what the work returned, or the terminal failure it
 * ended with, encoded as bytes by a {@link ResultCodec}.
 *
 * @param kind whether the work succeeded or failed terminally
 * @param payload the encoded result; never null, possibly empty
 */
public record Outcome(Kind kind, byte[] payload) {

  /** How the work ended. */
  public enum Kind {
    /** The work returned normally. */
    SUCCESS,
    /** The work threw an exception classified as terminal; repeats get the same failure. */
    FAILURE
  }

  public Outcome {
    Objects.requireNonNull(kind, "kind");
    payload = payload == null ? new byte[0] : payload;
  }

  /** A success with the given payload. */
  public static Outcome success(byte[] payload) {
    return new Outcome(Kind.SUCCESS, payload);
  }

  /** A terminal failure with the given payload. */
  public static Outcome failure(byte[] payload) {
    return new Outcome(Kind.FAILURE, payload);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Outcome other
        && kind == other.kind
        && Arrays.equals(payload, other.payload);
  }

  @Override
  public int hashCode() {
    return 31 * kind.hashCode() + Arrays.hashCode(payload);
  }

  @Override
  public String toString() {
    return "Outcome[" + kind + ", " + payload.length + " bytes]";
  }
}
