package dev.idem.spring.web.internal;

import dev.idem.core.IdempotencyException;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.KeyReuseException;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.StoreFullException;
import dev.idem.core.TokenAlreadyUsedException;
import dev.idem.core.UnknownTokenException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes RFC 9457 {@code application/problem+json} answers with {@code type} {@code
 * urn:idem:problem:<name>}. Bodies are built by hand: they are tiny and every string is escaped.
 */
public final class Problems {

  /** What every problem's {@code type} starts with; the problem's name follows. */
  public static final String TYPE_PREFIX = "urn:idem:problem:";

  /** The status of a repeat whose first answer was not kept: the effect happened, it is gone. */
  public static final int NOT_REPLAYABLE_STATUS = 410;

  private Problems() {}

  /** Writes the answer for an Idem exception; false when {@code e} has no HTTP mapping. */
  public static boolean write(HttpServletResponse response, IdempotencyException e)
      throws IOException {
    if (e instanceof RequestInProgressException p) {
      long seconds = Math.max(1, (p.retryAfter().toMillis() + 999) / 1000);
      response.setHeader("Retry-After", Long.toString(seconds));
      write(response, 409, "in-progress", "A request with this key is still running", p);
    } else if (e instanceof KeyReuseException) {
      write(response, 422, "key-reuse", "The key was used with another request", e);
    } else if (e instanceof InvalidKeyException k) {
      String name = k.isMissing() ? "missing-key" : "invalid-key";
      write(response, 400, name, "Idempotency key missing or invalid", e);
    } else if (e instanceof UnknownTokenException) {
      write(response, 400, "unknown-token", "Unknown, forged or expired token", e);
    } else if (e instanceof TokenAlreadyUsedException) {
      write(response, 409, "token-used", "The token was already used", e);
    } else if (e instanceof StoreFullException) {
      response.setHeader("Retry-After", "60");
      write(response, 429, "store-full", "Too many live idempotency records", e);
    } else if (e instanceof OutcomeNotReplayableException) {
      write(
          response,
          NOT_REPLAYABLE_STATUS,
          "not-replayable",
          "The first answer cannot be replayed",
          e);
    } else if (e instanceof IdempotencyStoreException) {
      write(response, 503, "store-unavailable", "Idempotency store unavailable", (String) null);
    } else {
      return false;
    }
    return true;
  }

  /** Writes one problem; {@code detail}'s message is shown unless it is null. */
  public static void write(
      HttpServletResponse response, int status, String name, String title, Exception detail)
      throws IOException {
    write(response, status, name, title, detail == null ? null : detail.getMessage());
  }

  /** Writes one problem; {@code detail} is shown unless it is null. */
  public static void write(
      HttpServletResponse response, int status, String name, String title, String detail)
      throws IOException {
    StringBuilder json = new StringBuilder(160);
    json.append("{\"type\":\"").append(TYPE_PREFIX).append(name).append('"');
    json.append(",\"title\":").append(quote(title));
    json.append(",\"status\":").append(status);
    if (detail != null) {
      json.append(",\"detail\":").append(quote(detail));
    }
    json.append('}');
    byte[] body = json.toString().getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.setContentType("application/problem+json");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /** {@code text} as a JSON string literal. */
  static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
