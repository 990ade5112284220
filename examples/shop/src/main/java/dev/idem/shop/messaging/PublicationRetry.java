package dev.idem.shop.messaging;

import dev.idem.shop.ShopProperties;
import dev.idem.spring.Idempotent;
import java.time.Duration;
import org.springframework.modulith.events.FailedEventPublications;
import org.springframework.modulith.events.ResubmissionOptions;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Hands again to their listeners the event publications that failed: a listener that threw
 * (RabbitMQ down), or one whose process died (the registry marks its publication failed once it has
 * been processing for longer than {@code spring.modulith.events.staleness.processing}). The minimum
 * age is a wish: Modulith 2.0.3's JDBC registry does not apply it (fixed in 2.0.9), which costs
 * nothing here since only failed publications are resubmitted. The registry delivers at least once;
 * the listeners are idempotent. Once per slot across the shop's instances ({@code @Idempotent} on a
 * schedule): two instances never resubmit the same publications at once.
 */
public class PublicationRetry {

  private final FailedEventPublications failed;
  private final Duration olderThan;

  PublicationRetry(FailedEventPublications failed, ShopProperties properties) {
    this.failed = failed;
    this.olderThan = properties.messaging().resubmitOlderThan();
  }

  /** Public, and the class not final: the bean is proxied for the advice. */
  @Idempotent(lease = "1m")
  @Scheduled(
      fixedDelayString = "${shop.messaging.resubmit-interval:5s}",
      initialDelayString = "${shop.messaging.resubmit-interval:5s}")
  public void resubmit() {
    failed.resubmit(ResubmissionOptions.defaults().withMinAge(olderThan));
  }
}
