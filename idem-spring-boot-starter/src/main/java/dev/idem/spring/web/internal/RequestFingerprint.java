package dev.idem.spring.web.internal;

import dev.idem.core.Fingerprint;
import dev.idem.core.MalformedJsonException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

/**
 * The fingerprint of a protected request, whichever web stack received it: everything a handler can
 * read that changes what the request means.
 */
public final class RequestFingerprint {

  private RequestFingerprint() {}

  /**
   * The method, the actual path (not the template: a key reused on another order's URL is key
   * reuse), the raw query, the content type and the body. A JSON body is decoded with the charset
   * its request declares (UTF-8 when none) and canonicalised, less {@code ignoredFields}; a body
   * that is not JSON, or not text in that charset, counts by its bytes, so two bodies a lenient
   * decoder would read alike are never taken for one another.
   *
   * @param query the raw query string, or null; an empty one is none
   * @param contentType the request's content type, or null
   */
  public static Fingerprint of(
      String method,
      String path,
      @Nullable String query,
      @Nullable String contentType,
      byte[] body,
      Set<String> ignoredFields) {
    MediaType type = parse(contentType);
    String prefix =
        prefix(method, path, query, type == null ? normalised(contentType) : type.toString());
    if (type != null && isJson(type) && body.length > 0) {
      String text = decode(body, type);
      if (text != null) {
        try {
          return Fingerprint.ofJson(prefix, text, ignoredFields);
        } catch (MalformedJsonException e) {
          // not JSON after all: the framework refuses it, or the handler reads it raw
        }
      }
    }
    return Fingerprint.of(prefix, body);
  }

  /**
   * One part of a multipart body as the fingerprint sees it.
   *
   * @param name the form field's name
   * @param filename the file name sent, or null
   * @param contentType the part's content type, or null
   * @param digest the SHA-256 of the part's bytes
   */
  public record Part(
      String name, @Nullable String filename, @Nullable String contentType, byte[] digest) {}

  /**
   * The fingerprint of a multipart request: as {@link #of}, with the media type less its parameters
   * (the boundary is random: two sends of one upload differ in it) and, for the body, its parts by
   * name (the parts of one name in the order sent), each by name, file name, content type and the
   * digest of its bytes.
   */
  public static Fingerprint ofParts(
      String method,
      String path,
      @Nullable String query,
      @Nullable String contentType,
      List<Part> parts) {
    MediaType type = parse(contentType);
    String prefix =
        prefix(
            method,
            path,
            query,
            type == null ? "multipart" : type.getType() + "/" + type.getSubtype());
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    // a client may send its parts in any order; only the order of one name's parts counts
    List<Part> byName = new java.util.ArrayList<>(parts);
    byName.sort(java.util.Comparator.comparing(Part::name));
    for (Part part : byName) {
      field(body, part.name());
      field(body, part.filename());
      field(body, part.contentType());
      body.writeBytes(part.digest());
    }
    return Fingerprint.of(prefix, body.toByteArray());
  }

  /**
   * The fingerprint of a form request: as {@link #of}, with the request's parameters as the handler
   * reads them (the query's and the form body's fields by name, each field's values in the order
   * sent, less {@code ignoredFields}) for the body, so that a form body another filter already read
   * still counts.
   */
  public static Fingerprint ofFields(
      String method,
      String path,
      @Nullable String query,
      @Nullable String contentType,
      Map<String, String[]> fields,
      Set<String> ignoredFields) {
    MediaType type = parse(contentType);
    String prefix =
        prefix(method, path, query, type == null ? normalised(contentType) : type.toString());
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    // a client may send its fields in any order; only the order of one field's values counts
    new java.util.TreeMap<>(fields)
        .forEach(
            (name, values) -> {
              if (!ignoredFields.contains(name)) {
                field(body, name);
                field(body, String.valueOf(values.length));
                for (String value : values) {
                  field(body, value);
                }
              }
            });
    return Fingerprint.of(prefix, body.toByteArray());
  }

  /** A new digest for {@link Part#digest}. */
  public static MessageDigest partDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** Whether {@code contentType} is a multipart body's. */
  public static boolean isMultipart(@Nullable String contentType) {
    MediaType type = parse(contentType);
    return type != null && type.getType().equalsIgnoreCase("multipart");
  }

  // Length-prefixed, so that no value can run into the next; null apart from empty.
  private static void field(ByteArrayOutputStream out, @Nullable String value) {
    if (value == null) {
      out.writeBytes("-1:".getBytes(StandardCharsets.US_ASCII));
      return;
    }
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    out.writeBytes((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(bytes);
  }

  // What every fingerprint starts with: the method, the path, the raw query and the media type.
  private static String prefix(
      String method, String path, @Nullable String query, String mediaType) {
    return method
        + " "
        + path
        + (query == null || query.isEmpty() ? "" : "?" + query)
        + "\n"
        + mediaType;
  }

  /** {@code contentType} parsed, or null when it is none or not a media type. */
  static @Nullable MediaType parse(@Nullable String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return null;
    }
    try {
      return MediaType.parseMediaType(contentType);
    } catch (InvalidMediaTypeException e) {
      return null;
    }
  }

  private static String normalised(@Nullable String contentType) {
    return contentType == null ? "" : contentType.strip().toLowerCase(Locale.ROOT);
  }

  private static boolean isJson(MediaType type) {
    return type.isCompatibleWith(MediaType.APPLICATION_JSON)
        || type.getSubtype().toLowerCase(Locale.ROOT).endsWith("+json");
  }

  // The body as text in its declared charset, or null when it is not (or the charset is unknown).
  private static @Nullable String decode(byte[] body, MediaType type) {
    Charset charset;
    try {
      charset = type.getCharset() != null ? type.getCharset() : StandardCharsets.UTF_8;
    } catch (IllegalArgumentException e) {
      return null;
    }
    try {
      return charset
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(body))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
