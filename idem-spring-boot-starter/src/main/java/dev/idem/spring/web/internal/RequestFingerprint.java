package dev.idem.spring.web.internal;

import dev.idem.core.Fingerprint;
import dev.idem.core.MalformedJsonException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
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
      String query,
      String contentType,
      byte[] body,
      Set<String> ignoredFields) {
    MediaType type = parse(contentType);
    String prefix =
        method
            + " "
            + path
            + (query == null || query.isEmpty() ? "" : "?" + query)
            + "\n"
            + (type == null ? normalised(contentType) : type.toString());
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

  private static MediaType parse(String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return null;
    }
    try {
      return MediaType.parseMediaType(contentType);
    } catch (InvalidMediaTypeException e) {
      return null;
    }
  }

  private static String normalised(String contentType) {
    return contentType == null ? "" : contentType.strip().toLowerCase(Locale.ROOT);
  }

  private static boolean isJson(MediaType type) {
    return type.isCompatibleWith(MediaType.APPLICATION_JSON)
        || type.getSubtype().toLowerCase(Locale.ROOT).endsWith("+json");
  }

  // The body as text in its declared charset, or null when it is not (or the charset is unknown).
  private static String decode(byte[] body, MediaType type) {
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
