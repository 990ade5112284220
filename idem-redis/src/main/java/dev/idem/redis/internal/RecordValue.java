package dev.idem.redis.internal;

import dev.idem.core.IdempotencyStoreException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
}
