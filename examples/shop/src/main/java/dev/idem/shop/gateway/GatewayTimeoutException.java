package dev.idem.shop.gateway;

/**
 * The gateway did not answer in time: the charge may or may not have happened. Asking again with
 * the same Idempotency-Key is safe, since the gateway deduplicates by it.
 */
public final class GatewayTimeoutException extends RuntimeException {

  private final String paymentNo;

  public GatewayTimeoutException(String paymentNo) {
    super("the gateway did not answer for payment " + paymentNo + "; its outcome is unknown");
    this.paymentNo = paymentNo;
  }

  public String paymentNo() {
    return paymentNo;
  }
}
