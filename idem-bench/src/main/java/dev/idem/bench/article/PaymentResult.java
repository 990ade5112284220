package dev.idem.bench.article;

/**
 * The article's {@code PaymentResult}: the payment number and status of an order's payment, or only
 * a status and a message when the call made no payment.
 *
 * @param paymentNo the payment's number; null for {@code processing} and {@code failed} answers
 * @param status {@code SUCCESS}, {@code FAILED}, {@code PENDING} or {@code PROCESSING}
 * @param message why, for answers that made no payment
 */
public record PaymentResult(String paymentNo, String status, String message) {

  /** Another call holds the order's lock (the article's "支付正在处理中"). */
  public static PaymentResult processing(String message) {
    return new PaymentResult(null, "PROCESSING", message);
  }

  public static PaymentResult failed(String message) {
    return new PaymentResult(null, "FAILED", message);
  }

  /** True when another call was paying the order and this one did nothing. */
  public boolean refusedAsBusy() {
    return paymentNo == null && "PROCESSING".equals(status);
  }
}
