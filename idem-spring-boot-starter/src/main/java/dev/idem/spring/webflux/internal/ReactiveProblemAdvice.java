package dev.idem.spring.webflux.internal;

import dev.idem.core.IdempotencyException;
import dev.idem.spring.web.internal.Problem;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ServerWebExchange;

/**
 * WebFlux: answers an Idem exception that escapes a handler (from an {@code @Idempotent} bean
 * method or {@code ReactiveIdempotency} call the handler made) with the problem the filter gives
 * for it, instead of a 500. Last in order, so the application's own {@code @ExceptionHandler} for
 * it wins; an exception without an HTTP mapping is thrown on. The exception is kept in the
 * exchange's {@link #EXCEPTION_ATTRIBUTE}, so that a guarded route around it leaves a refusal that
 * asks for a retry unstored.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class ReactiveProblemAdvice {

  /** The exchange attribute that holds the Idem exception this advice answered. */
  public static final String EXCEPTION_ATTRIBUTE = ReactiveProblemAdvice.class.getName() + ".error";

  @ExceptionHandler(IdempotencyException.class)
  ResponseEntity<byte[]> answer(IdempotencyException e, ServerWebExchange exchange) {
    Problem problem = Problem.of(e);
    if (problem == null) {
      throw e;
    }
    exchange.getAttributes().put(EXCEPTION_ATTRIBUTE, e);
    return problem.entity();
  }
}
