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
import dev.idem.core.internal.LogThrottle;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers an Idem exception that escapes a handler (thrown by an {@code @Idempotent} bean method or
 * a {@code ReactiveIdempotency} call the handler made) with the problem the filter gives for it,
 * instead of a 500; on Spring MVC and WebFlux alike. It handles only the exceptions that have an
 * HTTP answer ({@link ProblemAnswer#of}), so that others reach the application's handlers, and it
 * is last in order, so that the application's own {@code @ExceptionHandler} for one of them wins. A
 * refusal that asks for a retry carries {@code Retry-After}, which keeps a guarded route around it
 * from storing it.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class IdemExceptionAdvice {

  private static final Logger log = LoggerFactory.getLogger(IdemExceptionAdvice.class);

  private final LogThrottle throttle = new LogThrottle();

  @ExceptionHandler({
    InvalidKeyException.class,
    KeyReuseException.class,
    RequestInProgressException.class,
    UnknownTokenException.class,
    TokenAlreadyUsedException.class,
    StoreFullException.class,
    OutcomeNotReplayableException.class,
    IdempotencyStoreException.class
  })
  ResponseEntity<byte[]> answer(IdempotencyException e) {
    ProblemAnswer problem =
        Objects.requireNonNull(ProblemAnswer.escaped(e), () -> "no answer for " + e.getClass());
    // the client gets a neutral detail; what the exception says of the application is logged
    if (throttle.due()) {
      log.info(
          "answered {} {}{}: {}",
          problem.status(),
          problem.name(),
          throttle.skipped(),
          e.toString());
    }
    return problem.entity();
  }
}
