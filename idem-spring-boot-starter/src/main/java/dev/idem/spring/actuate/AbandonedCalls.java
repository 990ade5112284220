package dev.idem.spring.actuate;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.resume.Completer;
import dev.idem.core.resume.ResumeEntry;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The abandoned calls of resumable methods, for the {@code idempotency} endpoint: listed by
 * operation, retried (the completer's next pass runs the call again) or dropped (no completer runs
 * it; a client's retry still may). Every write, done or refused, is logged with who asked.
 */
final class AbandonedCalls {

  /** The most abandoned calls of one operation a listing shows and a retry or drop searches. */
  static final int LIMIT = 1000;

  private static final Logger log = LoggerFactory.getLogger(AbandonedCalls.class);

  private final Supplier<Optional<Completer>> completer;

  AbandonedCalls(Supplier<Optional<Completer>> completer) {
    this.completer = completer;
  }

  WebEndpointResponse<List<AbandonedCallDescriptor>> list(String operation) {
    Optional<Completer> running = completer.get();
    if (running.isEmpty()) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    try {
      return new WebEndpointResponse<>(
          running.get().abandoned(operation, LIMIT).stream()
              .map(AbandonedCallDescriptor::of)
              .toList());
    } catch (IdempotencyStoreException e) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
    }
  }

  WebEndpointResponse<AbandonedCallActionDescriptor> retry(
      String who, String operation, String id) {
    return act(who, operation, id, true);
  }

  WebEndpointResponse<AbandonedCallActionDescriptor> drop(String who, String operation, String id) {
    return act(who, operation, id, false);
  }

  private WebEndpointResponse<AbandonedCallActionDescriptor> act(
      String who, String operation, String id, boolean retry) {
    String verb = retry ? "retry" : "drop";
    Optional<Completer> running = completer.get();
    if (running.isEmpty()) {
      log.info("{} asked to {} a call of {}, but no method is resumable", who, verb, operation);
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    try {
      Optional<ResumeEntry> found =
          running.get().abandoned(operation, LIMIT).stream()
              .filter(e -> e.id().equals(id))
              .findFirst();
      if (found.isEmpty()) {
        log.info("{} asked to {} call {} of {}, which is not abandoned", who, verb, id, operation);
        return new WebEndpointResponse<>(
            new AbandonedCallActionDescriptor(
                false, "no abandoned call of " + operation + " has that id", null),
            WebEndpointResponse.STATUS_NOT_FOUND);
      }
      ResumeEntry entry = found.get();
      boolean done = retry ? running.get().retry(entry) : running.get().drop(entry);
      AbandonedCallDescriptor call = AbandonedCallDescriptor.of(entry);
      if (!done) {
        log.info("{} asked to {} {}, which changed meanwhile", who, verb, entry);
        return new WebEndpointResponse<>(
            new AbandonedCallActionDescriptor(false, "the call changed meanwhile", call), 409);
      }
      String message =
          retry
              ? "the completer's next pass runs key '" + entry.key().value() + "' again"
              : "no completer runs key '" + entry.key().value() + "' again";
      log.warn("{} through the idempotency endpoint: {} of {}", who, message, operation);
      return new WebEndpointResponse<>(new AbandonedCallActionDescriptor(true, message, call));
    } catch (IdempotencyStoreException e) {
      log.warn("{} asked to {} call {} of {}, and the log failed: {}", who, verb, id, operation, e);
      return new WebEndpointResponse<>(
          new AbandonedCallActionDescriptor(false, "the log failed: " + e.getMessage(), null),
          WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
    }
  }
}
