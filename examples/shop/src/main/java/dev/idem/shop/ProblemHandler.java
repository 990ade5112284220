package dev.idem.shop;

import dev.idem.shop.gateway.GatewayTimeoutException;
import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
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

  @ExceptionHandler(HttpMessageNotReadableException.class)
  ResponseEntity<ProblemDetail> unreadable(HttpMessageNotReadableException e) {
    return problem(HttpStatus.BAD_REQUEST, "invalid-request", "malformed JSON body", Map.of());
  }

  static ResponseEntity<ProblemDetail> problem(
      HttpStatus status, String type, String detail, Map<String, Object> properties) {
    ProblemDetail body = ProblemDetail.forStatusAndDetail(status, detail);
    body.setType(URI.create("urn:shop:problem:" + type));
    properties.forEach(body::setProperty);
    return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(body);
  }
}
