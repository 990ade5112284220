package dev.idem.shop.messaging;

import dev.idem.spring.EventId;
import java.math.BigDecimal;

/**
 * The event a successful payment publishes, in the transaction that settled it: Spring Modulith's
 * event publication registry writes it in that transaction and delivers it to its listeners after
 * the commit, again after a failure or a crash, until each listener has taken it.
 */
public record PaymentSucceeded(
    String paymentNo, String orderNo, String username, BigDecimal amount) {

  /** Its routing key on RabbitMQ. */
  public static final String TOPIC = "payment.succeeded";

  /** One event per payment: its identity, and its message id on RabbitMQ. */
  @EventId
  public String eventId() {
    return TOPIC + ":" + paymentNo;
  }
}
