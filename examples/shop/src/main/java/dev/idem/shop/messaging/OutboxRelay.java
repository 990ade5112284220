package dev.idem.shop.messaging;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Publishes outbox rows to the bus, then marks them published. A crash between the two publishes
 * the message again on the next run: at least once, by design; the consumer deduplicates. Several
 * instances may relay at once for the same reason.
 */
@Component
class OutboxRelay {

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
  private static final int BATCH = 100;

  private final Outbox outbox;
  private final MessageBus bus;

  OutboxRelay(Outbox outbox, MessageBus bus) {
    this.outbox = outbox;
    this.bus = bus;
  }

  @Scheduled(fixedDelayString = "${shop.outbox.interval:200ms}")
  void relay() {
    for (Message message : outbox.unpublished(BATCH)) {
      try {
        bus.publish(message);
      } catch (RuntimeException e) {
        log.warn("could not publish {}; next run tries again: {}", message.id(), e.toString());
        return;
      }
      outbox.markPublished(message.id());
    }
  }
}
