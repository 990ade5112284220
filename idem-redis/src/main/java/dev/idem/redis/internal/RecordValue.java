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
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A record as the one string value Redis keeps for it: a run of fields, each a one-letter name, the
 * byte length in decimal, a colon and the bytes ({@code S1:P F1:1 ...} without the spaces). Lengths
 * make any content safe, binary outcomes included; the Lua side reads and writes the same form (see
 * {@link LuaScripts}). Readers take the fields in any order (a name that appears twice counts as
 * its last occurrence), but every writer keeps the order {@code S F O L U W K B E X P T N A V}: the
 * completion script relies on it to check an in-progress record by its first bytes and to copy the
 * fields it keeps without reading them.
 *
 * <p>Fields: {@code S} state (I issued, P in progress, C completed, R released: only the fence
 * kept), {@code P} fingerprint, {@code F} fence, {@code O} owner, {@code U} lease end and {@code E}
 * logical expiry (server epoch ms), {@code L} lease length in ms (a claim by plain {@code SET},
 * which knows no server time, writes this instead of {@code U} and {@code E}: the record ends with
 * its key, and its lease one lease length earlier), {@code X} end of a completed record by the
 * clock of the process that completed it (for reading only: a completion sets the key's expiry
 * relative to Redis's clock and writes no {@code E}, so Redis and the scripts take the end from the
 * key), {@code T} began as a token, {@code N} token end, {@code K}/{@code B} outcome kind and
 * bytes, {@code A}/{@code V} scope and value (for inspection), {@code W} someone waits.
 *
 * <p>The static methods turn the replies of {@link LuaScripts#CLAIM} and {@link LuaScripts#FIND},
 * and record values read with plain commands, into core types. A script's record reply is {@code
 * {code, value, leaseUntil, expiresAt}}, the value in this form; leaseUntil is null unless in
 * progress.
 */
public final class RecordValue {

  // Where each field's bytes start in the value (-1: absent) and how many there are: a field is
  // copied or decoded only when asked for, so a replay that reads a few fields copies only those.
  private final byte[] value;
  private final int[] starts = new int[26];
  private final int[] lengths = new int[26];

  private RecordValue(byte[] value) {
    this.value = value;
    Arrays.fill(starts, -1);
  }

  /** Reads a stored value. */
  public static RecordValue parse(byte[] value) {
    RecordValue r = new RecordValue(value);
    int i = 0;
    while (i < value.length) {
      int name = value[i] - 'A';
      int len = 0;
      int j = i + 1;
      while (j < value.length && value[j] != ':') {
        int digit = value[j] - '0';
        if (digit < 0 || digit > 9 || len > (Integer.MAX_VALUE - 9) / 10) {
          throw malformed();
        }
        len = len * 10 + digit;
        j++;
      }
      int start = j + 1;
      if (name < 0 || name >= 26 || j == i + 1 || start + len > value.length) {
        throw malformed();
      }
      r.starts[name] = start;
      r.lengths[name] = len;
      i = start + len;
    }
    return r;
  }

  /** A copy of the bytes of field {@code name}, or null when absent. */
  public byte @Nullable [] bytes(char name) {
    int at = starts[name - 'A'];
    return at < 0 ? null : Arrays.copyOfRange(value, at, at + lengths[name - 'A']);
  }

  /** The field as text, or the empty string when absent. */
  public String text(char name) {
    int at = starts[name - 'A'];
    return at < 0 ? "" : new String(value, at, lengths[name - 'A'], StandardCharsets.UTF_8);
  }

  /** The field as a number (decimal, optionally negative), or 0 when absent. */
  public long number(char name) {
    int at = starts[name - 'A'];
    if (at < 0) {
      return 0;
    }
    int end = at + lengths[name - 'A'];
    boolean negative = end > at && value[at] == '-';
    int i = negative ? at + 1 : at;
    if (i == end) {
      throw malformed();
    }
    long n = 0;
    for (; i < end; i++) {
      int digit = value[i] - '0';
      if (digit < 0 || digit > 9 || n > (Long.MAX_VALUE - digit) / 10) {
        throw malformed();
      }
      n = n * 10 + digit;
    }
    return negative ? -n : n;
  }

  /** Whether field {@code name} is present. */
  public boolean has(char name) {
    return starts[name - 'A'] >= 0;
  }

  private static IdempotencyStoreException malformed() {
    return new IdempotencyStoreException("a Redis record value is not in Idem's record format");
  }

  /** Builds a value field by field. */
  public static final class Writer {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream(128);

    /** Adds a field; a null value leaves it out. */
    public Writer field(char name, byte[] value) {
      if (value != null) {
        out.write(name);
        out.writeBytes(Integer.toString(value.length).getBytes(StandardCharsets.US_ASCII));
        out.write(':');
        out.writeBytes(value);
      }
      return this;
    }

    /** Adds a text field (UTF-8); a null or empty value leaves it out. */
    public Writer field(char name, String value) {
      return value == null || value.isEmpty()
          ? this
          : field(name, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Adds a number field in decimal. */
    public Writer field(char name, long value) {
      return field(name, Long.toString(value).getBytes(StandardCharsets.US_ASCII));
    }

    public byte[] toBytes() {
      return out.toByteArray();
    }
  }

  /**
   * The claim's answer; {@code owner} is the owner the caller sent with the claim. The script
   * decided by the {@link ClaimVerdict} rules and answers the verdict's letter: C (taken), U, I, D
   * (completed) or M.
   */
  public static ClaimResult claim(List<Object> reply, IdempotencyKey key, String owner) {
    String code = replyText(reply.get(0));
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

  static String replyText(Object o) {
    return o == null ? "" : new String((byte[]) o, StandardCharsets.UTF_8);
  }

  /** The letter of a record's state in its value (this form's {@code S}). */
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
