package dev.idem.shop;

import java.util.Map;
import org.springframework.http.HttpStatus;

/**
 * A request the shop refuses for a business reason, answered as {@code application/problem+json}
 * with the type {@code urn:shop:problem:<type>}. Such answers are 4xx and come from the handler, so
 * the idempotency filter stores them and replays them to a retry with the same key: throw it for
 * outcomes of the operation (conflicts, not found), and let Bean Validation refuse a bad body
 * before the handler runs.
 */
public final class ShopException extends RuntimeException {

  private final HttpStatus status;
  private final String type;
  private final Map<String, Object> properties;

  private ShopException(
      HttpStatus status, String type, String detail, Map<String, Object> properties) {
    super(detail, null, false, false);
    this.status = status;
    this.type = type;
    this.properties = Map.copyOf(properties);
  }

  /** 404: the thing does not exist, or belongs to someone else. */
  public static ShopException notFound(String detail) {
    return new ShopException(HttpStatus.NOT_FOUND, "not-found", detail, Map.of());
  }

  /** 409: the request conflicts with the state of the order, its stock or its payment. */
  public static ShopException conflict(String type, String detail, Map<String, Object> props) {
    return new ShopException(HttpStatus.CONFLICT, type, detail, props);
  }

  /** 400: the request itself is wrong. */
  public static ShopException badRequest(String type, String detail) {
    return new ShopException(HttpStatus.BAD_REQUEST, type, detail, Map.of());
  }

  /** 401: a gateway callback without the shared secret. */
  public static ShopException unauthorized(String detail) {
    return new ShopException(HttpStatus.UNAUTHORIZED, "unauthorized", detail, Map.of());
  }

  /** The HTTP status of the answer: 400, 401, 404 or 409. */
  public HttpStatus status() {
    return status;
  }

  /**
   * The problem type's last part: the answer's {@code type} is {@code urn:shop:problem:<type>},
   * such as {@code order-paid} or {@code out-of-stock}. Clients switch on it, so it is stable.
   */
  public String type() {
    return type;
  }

  /**
   * Extra members of the problem+json body (such as {@code paymentNo} or {@code sku}), immutable;
   * empty when there are none.
   */
  public Map<String, Object> properties() {
    return properties;
  }
}
