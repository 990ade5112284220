package dev.idem.shop.messaging;

import java.math.BigDecimal;

/** The event a successful payment publishes through the outbox. */
public record PaymentSucceeded(
    String paymentNo, String orderNo, String username, BigDecimal amount) {

  public static final String TOPIC = "payment.succeeded";

  /** One event per payment: its id is derived from the payment number. */
  public String eventId() {
    return TOPIC + ":" + paymentNo;
  }
}
