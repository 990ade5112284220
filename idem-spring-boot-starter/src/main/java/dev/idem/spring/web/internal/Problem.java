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
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * One RFC 9457 problem answer, whichever web stack writes it: {@code type} {@code
 * urn:idem:problem:<name>}, and a {@code Retry-After} header when it has one.
 *
 * @param detail shown unless null
 * @param retryAfter the {@code Retry-After} value in seconds, or null for none
 */
public record Problem(int status, String name, String title, String detail, String retryAfter) {

  /** The answer's media type. */
  public static final String CONTENT_TYPE = "application/problem+json";

  /** What every problem's {@code type} starts with; the problem's name follows. */
  public static final String TYPE_PREFIX = "urn:idem:problem:";

  /** The status of a repeat whose first answer was not kept: the effect happened, it is gone. */
  public static final int NOT_REPLAYABLE_STATUS = 410;

  /** This problem with {@code Retry-After: seconds}. */
  public Problem retryAfter(String seconds) {
    return new Problem(status, name, title, detail, seconds);
  }

  /** The JSON body; built by hand, since it is tiny and every string is escaped. */
  public byte[] body() {
    StringBuilder json = new StringBuilder(160);
    json.append("{\"type\":\"").append(TYPE_PREFIX).append(name).append('"');
    json.append(",\"title\":").append(quote(title));
    json.append(",\"status\":").append(status);
    if (detail != null) {
      json.append(",\"detail\":").append(quote(detail));
    }
    json.append('}');
    return json.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** This problem as a controller's answer. */
  public ResponseEntity<byte[]> entity() {
    ResponseEntity.BodyBuilder answer =
        ResponseEntity.status(status).contentType(MediaType.parseMediaType(CONTENT_TYPE));
    if (retryAfter != null) {
      answer.header(HttpHeaders.RETRY_AFTER, retryAfter);
    }
    return answer.body(body());
  }

  /**
   * The answer for an Idem exception that escaped a handler (thrown by a bean method it called): as
   * {@link #of}, except that a store failure does not claim the request was not run, since the
   * handler may have done part of its work before it.
   */
  public static Problem escaped(IdempotencyException e) {
    Problem problem = of(e);
    if (e instanceof IdempotencyStoreException && problem != null) {
      return new Problem(
          problem.status(),
          problem.name(),
          problem.title(),
          "The idempotency store did not answer. Retry the request later.",
          problem.retryAfter());
    }
    return problem;
  }

  /** The answer for an Idem exception, or null when {@code e} has no HTTP mapping. */
  public static Problem of(IdempotencyException e) {
    if (e instanceof RequestInProgressException p) {
      long seconds = Math.max(1, (p.retryAfter().toMillis() + 999) / 1000);
      return problem(409, "in-progress", "A request with this key is still running", e)
          .retryAfter(Long.toString(seconds));
    } else if (e instanceof KeyReuseException) {
      return problem(422, "key-reuse", "The key was used with another request", e);
    } else if (e instanceof InvalidKeyException k) {
      String name = k.isMissing() ? "missing-key" : "invalid-key";
      return problem(400, name, "Idempotency key missing or invalid", e);
    } else if (e instanceof UnknownTokenException) {
      return problem(400, "unknown-token", "Unknown, forged or expired token", e);
    } else if (e instanceof TokenAlreadyUsedException) {
      return problem(409, "token-used", "The token was already used", e);
    } else if (e instanceof StoreFullException) {
      return problem(429, "store-full", "Too many live idempotency records", e).retryAfter("60");
    } else if (e instanceof OutcomeNotReplayableException) {
      return problem(
          NOT_REPLAYABLE_STATUS, "not-replayable", "The first answer cannot be replayed", e);
    } else if (e instanceof IdempotencyStoreException) {
      // the store's own message (hosts, timeouts) stays in the log, not in the answer
      return new Problem(
              503,
              "store-unavailable",
              "Idempotency store unavailable",
              "The idempotency store did not answer, so the request was not run. Retry it later.",
              null)
          .retryAfter("1");
    }
    return null;
  }

  private static Problem problem(int status, String name, String title, Exception detail) {
    return new Problem(status, name, title, detail.getMessage(), null);
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
