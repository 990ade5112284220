package dev.idem.core;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Rewrites a JSON document (RFC 8259) into one canonical spelling, so that two documents that mean
 * the same thing produce the same {@link Fingerprint}.
 *
 * <p>The canonical form has no insignificant white space; object members sorted by name (UTF-16
 * code unit order); strings escaped only where JSON requires ({@code "}, {@code \} and control
 * characters, using the short escapes where they exist); numbers reduced to their value ({@code
 * 1.0}, {@code 1e0} and {@code 1} are all {@code 1}; {@code -0} is {@code 0}). Array order is kept.
 * A duplicated member name, trailing data or nesting deeper than {@value #MAX_DEPTH} is refused
 * rather than guessed at.
 *
 * <p>Core holds this small reader itself because it may not depend on a JSON library; the starter
 * feeds it request bodies that it has already bounded in size.
 */
public final class CanonicalJson {

  /** Deepest nesting of arrays and objects accepted. */
  public static final int MAX_DEPTH = 128;

  private static final int PLAIN_NUMBER_LIMIT = 40;

  private final String in;
  private final Set<String> excluded;
  private int pos;

  private CanonicalJson(String in, Set<String> excluded) {
    this.in = in;
    this.excluded = excluded;
  }

  /**
   * Returns the canonical form of {@code json}.
   *
   * @throws MalformedJsonException when the text is not one valid JSON value
   */
  public static String canonicalize(String json) {
    return canonicalize(json, Set.of());
  }

  /**
   * Returns the canonical form of {@code json} without the members named by {@code excludedPaths}.
   * A path is the member names from the root object joined with {@code '.'} ({@code "requestedAt"},
   * {@code "meta.traceId"}); arrays are passed through, so {@code "items.note"} names the {@code
   * note} member of every object in the array {@code items}. An excluded member is still read and
   * must be valid JSON; a path that names nothing is ignored.
   *
   * @throws MalformedJsonException when the text is not one valid JSON value
   */
  public static String canonicalize(String json, Set<String> excludedPaths) {
    CanonicalJson reader = new CanonicalJson(json, Set.copyOf(excludedPaths));
    StringBuilder out = new StringBuilder(json.length());
    reader.skipSpace();
    reader.value(out, 0, reader.excluded.isEmpty() ? null : "");
    reader.skipSpace();
    if (reader.pos != json.length()) {
      throw reader.error("unexpected data after the JSON value");
    }
    return out.toString();
  }

  /**
   * @param path the dotted path of this value, or null when nothing is excluded
   */
  private void value(StringBuilder out, int depth, @Nullable String path) {
    if (pos >= in.length()) {
      throw error("unexpected end of input");
    }
    char c = in.charAt(pos);
    switch (c) {
      case '{' -> object(out, depth + 1, path);
      case '[' -> array(out, depth + 1, path);
      case '"' -> writeString(out, string());
      case 't' -> literal(out, "true");
      case 'f' -> literal(out, "false");
      case 'n' -> literal(out, "null");
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          number(out);
        } else {
          throw error("unexpected character '" + printable(c) + "'");
        }
      }
    }
  }

  private void object(StringBuilder out, int depth, @Nullable String path) {
    checkDepth(depth);
    pos++;
    Map<String, String> members = new TreeMap<>();
    skipSpace();
    if (peek() == '}') {
      pos++;
      out.append("{}");
      return;
    }
    while (true) {
      skipSpace();
      if (peek() != '"') {
        throw error("expected a member name");
      }
      int nameAt = pos;
      String name = string();
      skipSpace();
      expect(':');
      skipSpace();
      String memberPath = path == null ? null : path.isEmpty() ? name : path + '.' + name;
      StringBuilder member = new StringBuilder();
      value(member, depth, memberPath);
      if (members.containsKey(name)) {
        pos = nameAt;
        throw error("duplicate member name");
      }
      // an excluded member keeps its name (null) so that a duplicate of it is still refused
      boolean keep = memberPath == null || !excluded.contains(memberPath);
      members.put(name, keep ? member.toString() : null);
      skipSpace();
      char c = next();
      if (c == '}') {
        break;
      }
      if (c != ',') {
        pos--;
        throw error("expected ',' or '}'");
      }
    }
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : members.entrySet()) {
      if (e.getValue() == null) {
        continue;
      }
      if (!first) {
        out.append(',');
      }
      first = false;
      writeString(out, e.getKey());
      out.append(':').append(e.getValue());
    }
    out.append('}');
  }

  private void array(StringBuilder out, int depth, @Nullable String path) {
    checkDepth(depth);
    pos++;
    out.append('[');
    skipSpace();
    if (peek() == ']') {
      pos++;
      out.append(']');
      return;
    }
    while (true) {
      skipSpace();
      value(out, depth, path);
      skipSpace();
      char c = next();
      if (c == ']') {
        break;
      }
      if (c != ',') {
        pos--;
        throw error("expected ',' or ']'");
      }
      out.append(',');
    }
    out.append(']');
  }

  private String string() {
    pos++;
    StringBuilder s = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') {
        return s.toString();
      }
      if (c < 0x20) {
        pos--;
        throw error("unescaped control character in a string");
      }
      if (c != '\\') {
        s.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> s.append(e);
        case 'b' -> s.append('\b');
        case 'f' -> s.append('\f');
        case 'n' -> s.append('\n');
        case 'r' -> s.append('\r');
        case 't' -> s.append('\t');
        case 'u' -> s.append(hexChar());
        default -> {
          pos--;
          throw error("invalid escape '\\" + printable(e) + "'");
        }
      }
    }
  }

  private char hexChar() {
    if (pos + 4 > in.length()) {
      throw error("truncated \\u escape");
    }
    int v = 0;
    for (int i = 0; i < 4; i++) {
      int d = Character.digit(in.charAt(pos), 16);
      if (d < 0) {
        throw error("invalid hex digit in \\u escape");
      }
      v = v * 16 + d;
      pos++;
    }
    return (char) v;
  }

  private void number(StringBuilder out) {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    if (peek() == '0') {
      pos++;
    } else {
      digits("a digit");
    }
    if (peek() == '.') {
      pos++;
      digits("a digit after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      pos++;
      if (peek() == '+' || peek() == '-') {
        pos++;
      }
      digits("a digit in the exponent");
    }
    BigDecimal n;
    try {
      n = new BigDecimal(in.substring(start, pos));
    } catch (NumberFormatException | ArithmeticException e) {
      throw error("number out of range");
    }
    out.append(canonicalNumber(n));
  }

  static String canonicalNumber(BigDecimal n) {
    if (n.signum() == 0) {
      return "0";
    }
    BigDecimal stripped = n.stripTrailingZeros();
    // Plain digits for ordinary magnitudes; scientific notation keeps 1e999999 from expanding.
    if (Math.abs((long) stripped.scale()) + stripped.precision() <= PLAIN_NUMBER_LIMIT) {
      return stripped.toPlainString();
    }
    return stripped.toString();
  }

  private void digits(String what) {
    int start = pos;
    while (pos < in.length() && in.charAt(pos) >= '0' && in.charAt(pos) <= '9') {
      pos++;
    }
    if (pos == start) {
      throw error("expected " + what);
    }
  }

  private void literal(StringBuilder out, String word) {
    if (!in.startsWith(word, pos)) {
      throw error("unexpected characters");
    }
    pos += word.length();
    out.append(word);
  }

  private static void writeString(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private void checkDepth(int depth) {
    if (depth > MAX_DEPTH) {
      throw error("nesting deeper than " + MAX_DEPTH);
    }
  }

  private void skipSpace() {
    while (pos < in.length()) {
      char c = in.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private void expect(char c) {
    if (next() != c) {
      pos--;
      throw error("expected '" + c + "'");
    }
  }

  private char peek() {
    return pos < in.length() ? in.charAt(pos) : '\0';
  }

  private char next() {
    if (pos >= in.length()) {
      pos++;
      throw error("unexpected end of input");
    }
    return in.charAt(pos++);
  }

  private MalformedJsonException error(String message) {
    return new MalformedJsonException(message, Math.min(pos, in.length()));
  }

  private static String printable(char c) {
    return c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c);
  }
}
