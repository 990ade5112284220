package dev.idem.shop.messaging;

/**
 * A message as the outbox relays it.
 *
 * @param id unique per event; consumers deduplicate by it
 * @param topic what happened, such as {@code payment.succeeded}
 * @param payload the event as JSON
 */
public record Message(String id, String topic, String payload) {}
