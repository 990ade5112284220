package dev.idem.redis.internal;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ClaimVerdict;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Turns the replies of {@link LuaScripts#CLAIM} and {@link LuaScripts#FIND}, and record values read
 * with plain commands, into core types. A script's record reply is {@code {code, value, leaseUntil,
 * expiresAt}}, the value in the form of {@link RecordValue}; leaseUntil is null unless in progress.
 */
public final class RecordReplies {

  private RecordReplies() {}

  /**
   * The claim's answer; {@code owner} is the owner the caller sent with the claim. The script
   * decided by the {@link ClaimVerdict} rules and answers the verdict's letter: C (taken), U, I, D
   * (completed) or M.
   */
  public static ClaimResult claim(List<Object> reply, IdempotencyKey key, String owner) {
    String code = text(reply.get(0));
    if (code.equals("C")) {
      return new ClaimResult.Claimed(
          new Lease(key, (Long) reply.get(1), owner, Instant.ofEpochMilli((Long) reply.get(2))));
    }
    if (code.equals("G")) {
      throw new IdempotencyStoreException("the claim of " + key + " was given back before it ran");
    }
    ClaimVerdict verdict =
        switch (code) {
          case "U" -> ClaimVerdict.UNKNOWN_TOKEN;
          case "I" -> ClaimVerdict.IN_PROGRESS;
          case "D" -> ClaimVerdict.COMPLETED;
          case "M" -> ClaimVerdict.MISMATCH;
          default -> throw new IdempotencyStoreException("unexpected claim reply " + code);
        };
    return verdict.answer(verdict == ClaimVerdict.UNKNOWN_TOKEN ? null : record(reply, key));
  }

  /** The record found, or empty for an empty reply. */
  public static Optional<IdempotencyRecord> found(List<Object> reply, IdempotencyKey key) {
    return reply.isEmpty() ? Optional.empty() : Optional.of(record(reply, key));
  }

  /**
   * The claim's answer when {@code value}, read with a plain command, is a completed record: the
   * {@link ClaimVerdict} of {@code request} on it. Null when the record is in another state; then
   * only the claim script can answer. A completed record's key expires with it, so a value Redis
   * returns is live.
   */
  public static @Nullable ClaimResult completed(byte[] value, ClaimRequest request) {
    RecordValue r = RecordValue.parse(value);
    if (!"C".equals(r.text('S'))) {
      return null;
    }
    // A completion writes X (its end by the completing process's clock); records of earlier
    // versions carry E (by Redis's clock).
    if (!r.has('E') && !r.has('X')) {
      throw new IdempotencyStoreException("a completed Redis record carries no end");
    }
    long expiresAt = r.has('E') ? r.number('E') : r.number('X');
    IdempotencyRecord record = record(r, null, expiresAt, request.key());
    return ClaimVerdict.of(record, request, Instant.now()).answer(record);
  }

  private static IdempotencyRecord record(List<Object> reply, IdempotencyKey key) {
    Long leaseUntil = (Long) reply.get(2);
    return record(RecordValue.parse((byte[]) reply.get(1)), leaseUntil, (Long) reply.get(3), key);
  }

  private static IdempotencyRecord record(
      RecordValue r, @Nullable Long leaseUntil, long expiresAt, IdempotencyKey key) {
    RecordState state =
        switch (r.text('S')) {
          case "I" -> RecordState.ISSUED;
          case "P" -> RecordState.IN_PROGRESS;
          case "C" -> RecordState.COMPLETED;
          default -> throw new IdempotencyStoreException("unexpected record state " + r.text('S'));
        };
    if (state == RecordState.IN_PROGRESS && leaseUntil == null) {
      // Only a value written by something other than Idem lacks both U and L.
      throw new IdempotencyStoreException("a Redis record in progress carries no lease end");
    }
    Fingerprint fingerprint;
    try {
      fingerprint = new Fingerprint(r.text('P'));
    } catch (IllegalArgumentException e) {
      throw new IdempotencyStoreException("a Redis record carries a malformed fingerprint", e);
    }
    Outcome outcome = null;
    if (state == RecordState.COMPLETED) {
      Outcome.Kind kind = kindOf(r.text('K'));
      byte[] payload = r.bytes('B');
      outcome = new Outcome(kind, payload == null ? new byte[0] : payload);
    }
    return new IdempotencyRecord(
        key,
        state,
        fingerprint,
        r.number('F'),
        state == RecordState.IN_PROGRESS && leaseUntil != null
            ? Instant.ofEpochMilli(leaseUntil)
            : null,
        Instant.ofEpochMilli(expiresAt),
        "1".equals(r.text('T')),
        outcome);
  }

  static String text(Object o) {
    return o == null ? "" : new String((byte[]) o, StandardCharsets.UTF_8);
  }

  /** The letter of a record's state in its value ({@link RecordValue}'s {@code S}). */
  public static String stateCode(RecordState state) {
    return switch (state) {
      case ISSUED -> "I";
      case IN_PROGRESS -> "P";
      case COMPLETED -> "C";
    };
  }

  /** The one-letter code of an outcome kind in a stored record: S, F or U. */
  public static String kindCode(Outcome.Kind kind) {
    return switch (kind) {
      case SUCCESS -> "S";
      case FAILURE -> "F";
      case UNSTORED -> "U";
    };
  }

  private static Outcome.Kind kindOf(String code) {
    if (code == null || code.equals("S")) {
      return Outcome.Kind.SUCCESS;
    }
    return switch (code) {
      case "F" -> Outcome.Kind.FAILURE;
      case "U" -> Outcome.Kind.UNSTORED;
      default ->
          throw new IdempotencyStoreException("a Redis record carries an unknown kind " + code);
    };
  }
}
