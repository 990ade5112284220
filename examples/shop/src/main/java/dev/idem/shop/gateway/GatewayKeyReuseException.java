package dev.idem.shop.gateway;

/**
 * The Idempotency-Key came to the gateway before with another charge (another payment, order or
 * amount): refused, as Stripe refuses it, rather than answered with the other charge's outcome.
 */
public final class GatewayKeyReuseException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public GatewayKeyReuseException(String key) {
    super("the Idempotency-Key " + key + " was used for another charge");
  }
}
