package dev.idem.shop.messaging;

/**
 * Where the outbox relay publishes. Delivery is at least once: a message may arrive again, so every
 * consumer must be idempotent.
 */
public interface MessageBus {

  /**
   * Publishes the message; returns once the bus has taken it. Throws if it could not, and the relay
   * then tries again later.
   */
  void publish(Message message);
}
