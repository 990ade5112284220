package dev.idem.shop;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.hot.DeductionFailedException;
import dev.idem.shop.gateway.GatewayTimeoutException;
import dev.idem.shop.payment.GatewayBusyException;
import dev.idem.shop.payment.WalletBusyException;
import java.net.URI;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.validation.FieldError;
import org.springframework.validation.ObjectError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the shop's refusals into problem+json answers returned as {@code ResponseEntity}, so that a
 * replayed answer is byte for byte the first one.
 */
@RestControllerAdvice
class ProblemHandler {

  private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

  @ExceptionHandler(ShopException.class)
  ResponseEntity<ProblemDetail> refused(ShopException e) {
    return problem(e.status(), e.type(), e.getMessage(), e.properties());
  }

  @ExceptionHandler(GatewayTimeoutException.class)
  ResponseEntity<ProblemDetail> gatewayTimeout(GatewayTimeoutException e) {
    // 5xx: the idempotency filter frees the key, so a retry with it asks the gateway again.
    return problem(
        HttpStatus.GATEWAY_TIMEOUT,
        "gateway-timeout",
        e.getMessage(),
        Map.of("paymentNo", e.paymentNo()));
  }

  @ExceptionHandler(GatewayBusyException.class)
  ResponseEntity<ProblemDetail> gatewayBusy(GatewayBusyException e) {
    // refused before it was sent: the key is freed, and the retry charges under the same step key
    return withRetryAfter(
        problem(
            HttpStatus.SERVICE_UNAVAILABLE,
            "gateway-busy",
            e.getMessage(),
            Map.of("paymentNo", e.paymentNo())));
  }

  @ExceptionHandler(WalletBusyException.class)
  ResponseEntity<ProblemDetail> walletBusy(WalletBusyException e) {
    // 5xx as well: the key is freed, and the retry asks the wallet again under the same order.
    return withRetryAfter(
        problem(
            HttpStatus.SERVICE_UNAVAILABLE,
            "wallet-busy",
            e.getMessage(),
            Map.of("paymentNo", e.paymentNo())));
  }

  private static ResponseEntity<ProblemDetail> withRetryAfter(ResponseEntity<ProblemDetail> a) {
    return ResponseEntity.status(a.getStatusCode())
        .headers(a.getHeaders())
        .header("Retry-After", "1")
        .body(a.getBody());
  }

  /**
   * The database could not be reached or lost the connection mid-request: a transient failure the
   * client may retry, answered 503 with Retry-After rather than a bare 500. As a 5xx it is not
   * stored, so the retry with the same key runs again, and the transaction it was in rolled back.
   * Idem's JDBC helpers the handlers use (state transitions, balances, the hot-account store)
   * report the same failure as {@link IdempotencyStoreException} or {@link
   * DeductionFailedException}.
   */
  @ExceptionHandler({
    DataAccessResourceFailureException.class,
    TransientDataAccessException.class,
    RecoverableDataAccessException.class,
    CannotCreateTransactionException.class,
    TransactionSystemException.class,
    IdempotencyStoreException.class,
    DeductionFailedException.class
  })
  ResponseEntity<ProblemDetail> databaseUnavailable(RuntimeException e) {
    log.warn("database unavailable: {}", e.toString());
    return withRetryAfter(
        problem(
            HttpStatus.SERVICE_UNAVAILABLE,
            "database-unavailable",
            "the database could not be reached; retry with the same key",
            Map.of()));
  }

  @ExceptionHandler(HttpMessageNotReadableException.class)
  ResponseEntity<ProblemDetail> unreadable(HttpMessageNotReadableException e) {
    return problem(HttpStatus.BAD_REQUEST, "invalid-request", "malformed JSON body", Map.of());
  }

  /**
   * A body that fails its Bean Validation constraints, refused by Spring before the handler ran (so
   * the idempotency filter stores nothing). An unknown SKU keeps its own type.
   */
  @ExceptionHandler(MethodArgumentNotValidException.class)
  ResponseEntity<ProblemDetail> invalid(MethodArgumentNotValidException e) {
    String detail =
        e.getBindingResult().getAllErrors().stream()
            .map(ProblemHandler::describe)
            .sorted()
            .collect(Collectors.joining("; "));
    boolean unknownProduct =
        e.getBindingResult().getFieldErrors().stream()
            .anyMatch(f -> "KnownProduct".equals(f.getCode()));
    return problem(
        HttpStatus.BAD_REQUEST,
        unknownProduct ? "unknown-product" : "invalid-request",
        detail,
        Map.of());
  }

  private static String describe(ObjectError error) {
    return error instanceof FieldError field
        ? field.getField() + ": " + field.getDefaultMessage()
        : error.getDefaultMessage();
  }

  static ResponseEntity<ProblemDetail> problem(
      HttpStatus status, String type, String detail, Map<String, Object> properties) {
    ProblemDetail body = ProblemDetail.forStatusAndDetail(status, detail);
    body.setType(URI.create("urn:shop:problem:" + type));
    properties.forEach(body::setProperty);
    return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(body);
  }
}
