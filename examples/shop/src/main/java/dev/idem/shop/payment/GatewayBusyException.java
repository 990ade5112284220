package dev.idem.shop.payment;

/**
 * Too many card charges of this instance are waiting for the gateway: this one was not sent. The
 * gateway is called over HTTP on this application's own threads, so the calls in flight are bounded
 * ({@code shop.gateway.max-concurrent-charges}) and a burst of payments cannot take every thread
 * the gateway and other requests need. Answered 503 with Retry-After, which the idempotency filter
 * does not store; the payment's flow runs again.
 */
public final class GatewayBusyException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String paymentNo;

  public GatewayBusyException(String paymentNo) {
    super("too many card charges in flight; payment " + paymentNo + " was not sent, retry");
    this.paymentNo = paymentNo;
  }

  /** The payment whose charge was not sent. */
  public String paymentNo() {
    return paymentNo;
  }
}
