package dev.idem.spring.web.internal;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.InvalidKeyException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads the {@code Idempotency-Key} header: a structured-field string ({@code "abc"}, RFC 8941) or
 * a bare token ({@code abc}); both mean the key {@code abc}. Sent more than once, every value must
 * mean the same key.
 */
public final class KeyHeader {

  private KeyHeader() {}

  /**
   * The key value, or null when the header is absent.
   *
   * @throws InvalidKeyException when a value is empty, too long, not visible ASCII, badly quoted,
   *     or the values disagree
   */
  public static @Nullable String parse(List<String> values) {
    String key = null;
    for (String raw : values) {
      String value = parseOne(raw);
      if (key != null && !key.equals(value)) {
        throw new InvalidKeyException("Idempotency-Key was sent twice with different values");
      }
      key = value;
    }
    return key;
  }

  private static String parseOne(String raw) {
    String text = raw == null ? "" : raw.strip();
    String value = text.startsWith("\"") ? unquote(text) : text;
    if (!IdempotencyKey.isValidValue(value)) {
      throw new InvalidKeyException(
          "Idempotency-Key must be 1 to "
              + IdempotencyKey.MAX_VALUE_LENGTH
              + " visible ASCII characters");
    }
    return value;
  }

  private static String unquote(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 1; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"') {
        if (i != text.length() - 1) {
          throw new InvalidKeyException("Idempotency-Key has data after its closing quote");
        }
        return out.toString();
      }
      if (c == '\\') {
        i++;
        if (i >= text.length() || (text.charAt(i) != '"' && text.charAt(i) != '\\')) {
          throw new InvalidKeyException("Idempotency-Key has a bad escape");
        }
        c = text.charAt(i);
      } else if (c < 0x20 || c > 0x7e) {
        throw new InvalidKeyException("Idempotency-Key holds a character outside visible ASCII");
      }
      out.append(c);
    }
    throw new InvalidKeyException("Idempotency-Key has no closing quote");
  }
}
