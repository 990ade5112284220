package dev.idem.spring.web.internal;

import dev.idem.core.IdempotencyException;
import dev.idem.spring.web.IdempotencyFilter;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes what Idem itself answers on a servlet response: a {@link StoredResponse} sent again, and
 * {@link ProblemAnswer}s (RFC 9457 {@code application/problem+json}).
 */
public final class ServletAnswers {

  private ServletAnswers() {}

  /** Sends {@code stored} again, marked with {@code Idempotent-Replayed: true}. */
  public static void replay(StoredResponse stored, HttpServletResponse response)
      throws IOException {
    for (Map.Entry<String, String> header : stored.headers()) {
      if (stored.omittedBytes() == 0 || !header.getKey().equalsIgnoreCase("Content-Type")) {
        response.addHeader(header.getKey(), header.getValue());
      }
    }
    response.setHeader(IdempotencyFilter.REPLAYED_HEADER, "true");
    if (stored.omittedBytes() > 0) {
      write(response, stored.notReplayable());
      return;
    }
    response.setStatus(stored.status());
    if (stored.error() != null) {
      response.sendError(stored.status(), stored.error().isEmpty() ? null : stored.error());
      return;
    }
    response.setContentLength(stored.body().length);
    response.getOutputStream().write(stored.body());
  }

  /** Every header {@code response} holds so far, in order. */
  public static List<Map.Entry<String, String>> headers(HttpServletResponse response) {
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (String name : response.getHeaderNames()) {
      for (String value : response.getHeaders(name)) {
        headers.add(Map.entry(name, value));
      }
    }
    return headers;
  }

  /**
   * Answers a request whose transaction rolled back after its handler answered ({@link
   * HttpRules#rolledBack}): nothing of the handler's answer goes out, its headers included (a
   * {@code Location} would name what was undone), only those set before it, {@code headersBefore}.
   */
  public static void rolledBack(
      HttpServletResponse response, List<Map.Entry<String, String>> headersBefore)
      throws IOException {
    if (response.isCommitted()) {
      return;
    }
    response.reset();
    for (Map.Entry<String, String> header : headersBefore) {
      response.addHeader(header.getKey(), header.getValue());
    }
    write(response, HttpRules.rolledBack());
  }

  /** Writes the answer for an Idem exception; false when {@code e} has no HTTP mapping. */
  public static boolean write(HttpServletResponse response, IdempotencyException e)
      throws IOException {
    ProblemAnswer problem = ProblemAnswer.of(e);
    if (problem == null) {
      return false;
    }
    write(response, problem);
    return true;
  }

  /** Writes one problem; {@code detail}'s message is shown unless it is null. */
  public static void write(
      HttpServletResponse response,
      int status,
      String name,
      String title,
      @Nullable Exception detail)
      throws IOException {
    write(response, status, name, title, detail == null ? null : detail.getMessage());
  }

  /** Writes one problem; {@code detail} is shown unless it is null. */
  public static void write(
      HttpServletResponse response, int status, String name, String title, @Nullable String detail)
      throws IOException {
    write(response, new ProblemAnswer(status, name, title, detail, null));
  }

  /** Writes {@code problem}, with its {@code Retry-After} when it has one. */
  public static void write(HttpServletResponse response, ProblemAnswer problem) throws IOException {
    byte[] body = problem.body();
    if (problem.retryAfter() != null) {
      response.setHeader("Retry-After", problem.retryAfter());
    }
    response.setStatus(problem.status());
    response.setContentType(ProblemAnswer.CONTENT_TYPE);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
