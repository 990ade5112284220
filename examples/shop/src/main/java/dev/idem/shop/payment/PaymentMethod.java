package dev.idem.shop.payment;

/** How an order is paid. */
public enum PaymentMethod {
  /** Through the (fake) third-party card gateway. */
  CARD,
  /** From the user's wallet balance. */
  WALLET
}
