package dev.idem.spring.web.internal;

import dev.idem.core.IdempotencyException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Writes {@link ProblemAnswer}s (RFC 9457 {@code application/problem+json}) to a servlet response.
 */
public final class ServletProblemWriter {

  private ServletProblemWriter() {}

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
