package dev.idem.spring.web.internal;

import dev.idem.spring.web.IdempotencyFilter;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;

/** Sends a {@link StoredResponse} again on a servlet response. */
public final class ServletReplay {

  private ServletReplay() {}

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
      ServletProblemWriter.write(response, stored.notReplayable());
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
}
