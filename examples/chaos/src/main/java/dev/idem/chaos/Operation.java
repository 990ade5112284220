package dev.idem.chaos;

/** What a virtual user does in one step. */
public enum Operation {
  /** {@code POST /api/orders} with a fresh key. */
  ORDER,
  /** {@code POST /api/orders/{orderNo}/payments} by card. */
  CARD,
  /** The same from the wallet. */
  WALLET,
  /** {@code POST /api/payments/notify}, as the gateway would. */
  CALLBACK;

  /** Whether the operation sends an {@code Idempotency-Key} whose answers must repeat. */
  boolean keyed() {
    return this != CALLBACK;
  }

  /** Whether the operation is a payment. */
  boolean payment() {
    return this == CARD || this == WALLET;
  }
}
