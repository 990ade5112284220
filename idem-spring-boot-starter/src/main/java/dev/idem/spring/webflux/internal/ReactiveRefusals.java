package dev.idem.spring.webflux.internal;

import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.server.NotAcceptableStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;
import org.springframework.web.server.UnsupportedMediaTypeStatusException;

/**
 * Tells whether WebFlux refused a request before its handler ran, which frees the key, as the
 * servlet side's {@code ServletRefusals} does. The kind of error says that it is WebFlux's refusal
 * of the request (an unreadable or invalid argument, which names the handler's parameter it could
 * not resolve; a media type nobody reads or writes; a failed method validation); {@link
 * HandlerReturns} says where it was raised. Before the handler method returned (while WebFlux chose
 * it or resolved its arguments) the handler did nothing. After it, the refusal came out of the
 * pipeline the handler returned, which may have done its work before it read its body ({@code
 * charge().then(body)}), or out of writing its answer: it is the handler's answer, and kept. An
 * input refusal that names no parameter was raised by the application itself (a handler method that
 * throws it, perhaps after its work) or by a functional route's handler function reading its own
 * body: the handler ran, and it is kept too. A handler that takes its body as a {@code Mono} and
 * refuses it is then answered the same to every repeat: take the body as a plain argument to have a
 * malformed one refused before the handler.
 */
public final class ReactiveRefusals {

  private ReactiveRefusals() {}

  /** True when {@code error} refused the request of {@code exchange} before its handler ran. */
  public static boolean beforeHandler(ServerWebExchange exchange, Throwable error) {
    boolean refusal =
        (error instanceof ServerWebInputException input
                && (input.getMethodParameter() != null || noHandlerMatched(exchange)))
            || error instanceof UnsupportedMediaTypeStatusException
            || error instanceof NotAcceptableStatusException
            || error instanceof HandlerMethodValidationException;
    return refusal && !HandlerReturns.returned(exchange);
  }

  // No handler took the request (a params condition no mapping met): nothing ran.
  private static boolean noHandlerMatched(ServerWebExchange exchange) {
    return exchange.getAttribute(
            org.springframework.web.reactive.HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE)
        == null;
  }
}
