package dev.idem.spring.web.internal;

import dev.idem.core.IdempotencyException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Spring MVC: answers an Idem exception that escapes a handler (from an {@code @Idempotent} bean
 * method the handler called) with the problem the filter gives for it, instead of a 500. Last in
 * order, so the application's own {@code @ExceptionHandler} for it wins; an exception without an
 * HTTP mapping is thrown on. A refusal that asks for a retry stays unstored by a guarded route
 * around it ({@link Refusals#passedOn}).
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class ProblemAdvice {

  @ExceptionHandler(IdempotencyException.class)
  ResponseEntity<byte[]> answer(IdempotencyException e) {
    Problem problem = Problem.of(e);
    if (problem == null) {
      throw e;
    }
    return problem.entity();
  }
}
