package dev.idem.core.store;

import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.ResultCodec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The stored result of a completed operation: what the work returned, or the failure it ended with,
 * encoded as bytes by a {@link ResultCodec}; or the mark that its result could not be kept.
 *
 * @param kind whether the work succeeded, failed, or left a result too large to keep
 * @param payload the encoded result; never null, possibly empty
 */
public record Outcome(Kind kind, byte[] payload) {

  /** How the work ended. */
  public enum Kind {
    /** The work returned normally. */
    SUCCESS,
    /**
     * The work threw an exception that is stored: one classified as terminal, or any exception when
     * the caller's transaction committed the work's writes; repeats get the same failure.
     */
    FAILURE,
    /**
     * The work ran but its result could not be kept (over the store's size limit); the payload says
     * why. Repeats get {@link OutcomeNotReplayableException} and the work never runs again.
     */
    UNSTORED
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

  /** The mark stored in place of a result the store refused as too large. */
  public static Outcome unstored(OutcomeTooLargeException refusal) {
    return new Outcome(
        Kind.UNSTORED, String.valueOf(refusal.getMessage()).getBytes(StandardCharsets.UTF_8));
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
