package dev.idem.spring.webflux.internal;

import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.NotAcceptableStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;
import org.springframework.web.server.UnsupportedMediaTypeStatusException;

/**
 * Tells whether WebFlux refused a request before its handler ran, which frees the key, as the
 * servlet side's {@code Refusals} does. A refusal of the request's input (an unreadable or invalid
 * body, a missing header or parameter, a media type nobody reads) is taken as coming before the
 * handler's work wherever it is raised: a WebFlux handler usually receives its body as a {@code
 * Mono} and reads it inside its own pipeline, after it returned, so the error stops that pipeline
 * before its work. A refusal of the answer (406: nothing writes what the client accepts) comes
 * before the handler only when no handler was chosen; once one was, it ran, and its answer is kept.
 */
public final class ReactiveRefusals {

  private ReactiveRefusals() {}

  /** True when {@code error} refused the request of {@code exchange} before its handler ran. */
  public static boolean beforeHandler(ServerWebExchange exchange, Throwable error) {
    if (error instanceof NotAcceptableStatusException) {
      return exchange.getAttribute(HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE) == null;
    }
    return error instanceof ServerWebInputException
        || error instanceof UnsupportedMediaTypeStatusException
        || error instanceof HandlerMethodValidationException;
  }
}
