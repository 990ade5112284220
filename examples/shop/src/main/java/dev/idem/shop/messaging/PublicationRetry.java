package dev.idem.shop.messaging;

import dev.idem.shop.ShopProperties;
import dev.idem.spring.Idempotent;
import java.time.Duration;
import org.springframework.modulith.events.IncompleteEventPublications;
import org.springframework.modulith.events.ResubmissionOptions;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Hands again to their listeners the event publications that did not complete: a listener that
 * failed (RabbitMQ down), or one whose process died (the registry marks its publication failed once
 * it has been processing for longer than {@code spring.modulith.events.staleness.processing}). The
 * registry delivers at least once; the listeners are idempotent. Once per slot across the shop's
 * instances ({@code @Idempotent} on a schedule): two instances never resubmit the same publications
 * at once.
 */
public class PublicationRetry {

  private final IncompleteEventPublications incomplete;
  private final Duration olderThan;

  PublicationRetry(IncompleteEventPublications incomplete, ShopProperties properties) {
    this.incomplete = incomplete;
    this.olderThan = properties.messaging().resubmitOlderThan();
  }

  /** Public, and the class not final: the bean is proxied for the advice. */
  @Idempotent(lease = "1m")
  @Scheduled(
      fixedDelayString = "${shop.messaging.resubmit-interval:5s}",
      initialDelayString = "${shop.messaging.resubmit-interval:5s}")
  public void resubmit() {
    incomplete.resubmitIncompletePublications(ResubmissionOptions.defaults().withMinAge(olderThan));
  }
}
