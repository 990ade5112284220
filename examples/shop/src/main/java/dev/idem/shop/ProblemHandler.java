package dev.idem.shop;

import dev.idem.shop.gateway.GatewayTimeoutException;
import dev.idem.shop.payment.WalletBusyException;
import java.net.URI;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
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

  @ExceptionHandler(WalletBusyException.class)
  ResponseEntity<ProblemDetail> walletBusy(WalletBusyException e) {
    // 5xx as well: the key is freed, and the retry asks the wallet again under the same order.
    ResponseEntity<ProblemDetail> answer =
        problem(
            HttpStatus.SERVICE_UNAVAILABLE,
            "wallet-busy",
            e.getMessage(),
            Map.of("paymentNo", e.paymentNo()));
    return ResponseEntity.status(answer.getStatusCode())
        .headers(answer.getHeaders())
        .header("Retry-After", "1")
        .body(answer.getBody());
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
