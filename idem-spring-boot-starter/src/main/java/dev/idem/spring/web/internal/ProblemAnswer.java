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
import org.jspecify.annotations.Nullable;
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
public record ProblemAnswer(
    int status, String name, String title, @Nullable String detail, @Nullable String retryAfter) {

  /** The answer's media type. */
  public static final String CONTENT_TYPE = "application/problem+json";

  /** What every problem's {@code type} starts with; the problem's name follows. */
  public static final String TYPE_PREFIX = "urn:idem:problem:";

  /** The status of a repeat whose first answer was not kept: the effect happened, it is gone. */
  public static final int NOT_REPLAYABLE_STATUS = 410;

  /** This problem with {@code Retry-After: seconds}. */
  public ProblemAnswer retryAfter(String seconds) {
    return new ProblemAnswer(status, name, title, detail, seconds);
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
   * {@link #of}, with a neutral title and detail, since the exception's message speaks of the
   * application (its key expressions, classes and methods), which stays in the log; a store failure
   * does not claim the request was not run, since the handler may have done part of its work.
   */
  public static @Nullable ProblemAnswer escaped(IdempotencyException e) {
    ProblemAnswer problem = of(e);
    if (problem == null) {
      return null;
    }
    if (e instanceof IdempotencyStoreException) {
      return problem.withDetail("The idempotency store did not answer. Retry the request later.");
    }
    if (e instanceof KeyReuseException) {
      // the key is the operation's (an order number), not the client's Idempotency-Key
      return new ProblemAnswer(
          problem.status(),
          problem.name(),
          "The operation was already done with other content",
          "This operation was already done once with other content, and it is not done again.",
          problem.retryAfter());
    }
    if (e instanceof InvalidKeyException) {
      return new ProblemAnswer(
          problem.status(),
          problem.name(),
          "A value the operation is keyed by is missing or invalid",
          "The request lacks a value that identifies the operation, or the value is not valid.",
          problem.retryAfter());
    }
    // the rest speak of "this key": the operation's, which the client did not send
    if (e instanceof RequestInProgressException) {
      return new ProblemAnswer(
          problem.status(),
          problem.name(),
          "The operation is still running",
          "The operation this request asks for is still running. Retry after Retry-After seconds.",
          problem.retryAfter());
    }
    if (e instanceof OutcomeNotReplayableException) {
      return new ProblemAnswer(
          problem.status(),
          problem.name(),
          "The operation ran once and its answer was not kept",
          "The operation this request asks for ran once, and its answer was not kept.",
          problem.retryAfter());
    }
    return problem;
  }

  private ProblemAnswer withDetail(String neutral) {
    return new ProblemAnswer(status, name, title, neutral, retryAfter);
  }

  /** The answer for an Idem exception, or null when {@code e} has no HTTP mapping. */
  public static @Nullable ProblemAnswer of(IdempotencyException e) {
    if (e instanceof RequestInProgressException p) {
      long seconds = Math.max(1, (p.retryAfter().toMillis() + 999) / 1000);
      return new ProblemAnswer(
          409,
          "in-progress",
          "A request with this key is still running",
          "The first request with this key has not finished. Retry after Retry-After seconds.",
          Long.toString(seconds));
    } else if (e instanceof KeyReuseException) {
      return new ProblemAnswer(
          422,
          "key-reuse",
          "The key was used with another request",
          "This key belongs to a request with other content. Send a new key for a new request.",
          null);
    } else if (e instanceof InvalidKeyException k) {
      // the filter's own messages say what is wrong with the header, and nothing else
      String name = k.isMissing() ? "missing-key" : "invalid-key";
      return new ProblemAnswer(
          400, name, "Idempotency key missing or invalid", e.getMessage(), null);
    } else if (e instanceof UnknownTokenException) {
      return new ProblemAnswer(
          400,
          "unknown-token",
          "Unknown, forged or expired token",
          "The token is not one this server issued to you, or it expired. Ask for a new one.",
          null);
    } else if (e instanceof TokenAlreadyUsedException) {
      return new ProblemAnswer(
          409,
          "token-used",
          "The token was already used",
          "Each token guards one request. Ask for a new one.",
          null);
    } else if (e instanceof StoreFullException) {
      return new ProblemAnswer(
          429,
          "store-full",
          "Too many live idempotency records",
          "Too many requests of yours are kept right now. Retry later.",
          "60");
    } else if (e instanceof OutcomeNotReplayableException) {
      return new ProblemAnswer(
          NOT_REPLAYABLE_STATUS,
          "not-replayable",
          "The first answer cannot be replayed",
          "The request with this key ran once, and its answer was not kept.",
          null);
    } else if (e instanceof IdempotencyStoreException) {
      // the store's own message (hosts, timeouts) stays in the log, not in the answer
      return new ProblemAnswer(
              503,
              "store-unavailable",
              "Idempotency store unavailable",
              "The idempotency store did not answer, so the request was not run. Retry it later.",
              null)
          .retryAfter("1");
    }
    return null;
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
