package dev.idem.redis.internal;

import dev.idem.core.ClaimResult;
import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.Lease;
import dev.idem.core.Outcome;
import dev.idem.core.RecordState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Turns the replies of {@link LuaScripts#CLAIM} and {@link LuaScripts#FIND} into core types. A
 * record reply is {@code {code, st, fp, f, lu, ex, t, ok, out}}; absent fields are null.
 */
public final class RecordReplies {

  private RecordReplies() {}

  /** The claim's answer; {@code owner} is the owner the caller sent with the claim. */
  public static ClaimResult claim(List<Object> reply, IdempotencyKey key, String owner) {
    return switch (text(reply.get(0))) {
      case "C" ->
          new ClaimResult.Claimed(
              new Lease(
                  key, (Long) reply.get(1), owner, Instant.ofEpochMilli((Long) reply.get(2))));
      case "U" -> new ClaimResult.UnknownToken();
      case "I" -> new ClaimResult.InProgress(record(reply, key));
      case "D" -> new ClaimResult.Completed(record(reply, key));
      case "M" -> new ClaimResult.Mismatch(record(reply, key));
      default ->
          throw new IdempotencyStoreException("unexpected claim reply " + text(reply.get(0)));
    };
  }

  /** The record found, or empty for an empty reply. */
  public static Optional<IdempotencyRecord> found(List<Object> reply, IdempotencyKey key) {
    return reply.isEmpty() ? Optional.empty() : Optional.of(record(reply, key));
  }

  private static IdempotencyRecord record(List<Object> r, IdempotencyKey key) {
    RecordState state =
        switch (text(r.get(1))) {
          case "I" -> RecordState.ISSUED;
          case "P" -> RecordState.IN_PROGRESS;
          case "C" -> RecordState.COMPLETED;
          default ->
              throw new IdempotencyStoreException("unexpected record state " + text(r.get(1)));
        };
    String fp = r.get(2) == null ? "" : text(r.get(2));
    Outcome outcome = null;
    if (state == RecordState.COMPLETED) {
      Outcome.Kind kind = "F".equals(text(r.get(7))) ? Outcome.Kind.FAILURE : Outcome.Kind.SUCCESS;
      outcome = new Outcome(kind, r.get(8) == null ? new byte[0] : (byte[]) r.get(8));
    }
    return new IdempotencyRecord(
        key,
        state,
        new Fingerprint(fp),
        number(r.get(3)),
        state == RecordState.IN_PROGRESS ? Instant.ofEpochMilli(number(r.get(4))) : null,
        Instant.ofEpochMilli(number(r.get(5))),
        "1".equals(text(r.get(6))),
        outcome);
  }

  private static long number(Object o) {
    return o == null ? 0 : Long.parseLong(text(o));
  }

  private static String text(Object o) {
    return o == null ? "" : new String((byte[]) o, StandardCharsets.UTF_8);
  }
}
