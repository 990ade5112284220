package dev.idem.shop.payment;

/**
 * The wallet's hot-account executor gave no answer for a debit (its queue was full, the wait ran
 * out, or the database failed the batch). The payment stays PROCESSING: a retry, with any key, asks
 * again under the same order number and cannot debit twice; the completer runs the payment's flow
 * again otherwise. Answered 503, which the idempotency filter does not store.
 */
public final class WalletBusyException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String paymentNo;

  WalletBusyException(String paymentNo, Throwable cause) {
    super("the wallet gave no answer for payment " + paymentNo + ": " + cause.getMessage(), cause);
    this.paymentNo = paymentNo;
  }

  /** The payment left in PROCESSING. */
  public String paymentNo() {
    return paymentNo;
  }
}
