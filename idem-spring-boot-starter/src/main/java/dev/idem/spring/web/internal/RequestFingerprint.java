package dev.idem.spring.web.internal;

import dev.idem.core.Fingerprint;
import dev.idem.core.MalformedJsonException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/** The fingerprint of a protected request, whichever web stack received it. */
public final class RequestFingerprint {

  private RequestFingerprint() {}

  /**
   * The method, the actual path (not the template: a key reused on another order's URL is key
   * reuse) and the body; a JSON body canonicalised, less {@code ignoredFields}.
   *
   * @param contentType the request's content type, or null
   */
  public static Fingerprint of(
      String method, String path, String contentType, byte[] body, Set<String> ignoredFields) {
    String prefix = method + " " + path;
    if (contentType != null && isJson(contentType) && body.length > 0) {
      try {
        return Fingerprint.ofJson(prefix, new String(body, StandardCharsets.UTF_8), ignoredFields);
      } catch (MalformedJsonException e) {
        // not JSON after all: the framework refuses it, or the handler reads it raw
      }
    }
    return Fingerprint.of(prefix, body);
  }

  private static boolean isJson(String contentType) {
    String type = contentType.toLowerCase(Locale.ROOT);
    int semicolon = type.indexOf(';');
    String bare = (semicolon < 0 ? type : type.substring(0, semicolon)).strip();
    return bare.equals("application/json") || bare.endsWith("+json");
  }
}
