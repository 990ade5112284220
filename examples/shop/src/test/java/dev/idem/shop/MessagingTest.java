package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.ExecutionOutcome;
import dev.idem.shop.messaging.LoyaltyDeliveries;
import dev.idem.shop.messaging.PaymentSucceeded;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.modulith.events.FailedEventPublications;
import org.springframework.modulith.events.ResubmissionOptions;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A payment's event reaches the loyalty points again, as Spring Modulith's registry delivers it at
 * least once: published a second time, and left incomplete as by a process that died after the
 * points' commit but before the registry noted the delivery, then resubmitted. The points are given
 * once; every later delivery is a duplicate.
 */
class MessagingTest extends EndToEnd {

  @Autowired LoyaltyDeliveries loyalty;
  @Autowired ApplicationEventPublisher events;
  @Autowired FailedEventPublications failed;
  @Autowired TransactionTemplate tx;

  @Test
  void aPaymentEventDeliveredAgainGivesItsPointsOnce() {
    String orderNo = alice.order("STICKER", 10);
    String paymentNo = alice.pay(orderNo, "WALLET", key()).text("paymentNo");
    await().atMost(Duration.ofSeconds(20)).until(() -> points(orderNo) == 1);
    PaymentSucceeded event =
        new PaymentSucceeded(paymentNo, orderNo, "alice", new BigDecimal("20.00"));

    AtomicInteger duplicates = new AtomicInteger();
    AtomicInteger processed = new AtomicInteger();
    loyalty.observe(
        (id, outcome) -> {
          if (id.equals(event.eventId())) {
            (outcome == ExecutionOutcome.REPLAYED ? duplicates : processed).incrementAndGet();
          }
        });

    tx.executeWithoutResult(s -> events.publishEvent(event));
    await().atMost(Duration.ofSeconds(20)).until(() -> duplicates.get() + processed.get() >= 1);
    // Every publication of the event completed, then one is as a crash leaves it: failed.
    await().atMost(Duration.ofSeconds(20)).until(() -> incompleteOf(orderNo) == 0);
    jdbc.update(
        "UPDATE EVENT_PUBLICATION SET completion_date = NULL, status = 'FAILED'"
            + " WHERE serialized_event LIKE ?",
        "%" + orderNo + "%");
    failed.resubmit(ResubmissionOptions.defaults());
    // Three deliveries after the first at least (over RabbitMQ, later than the broker confirms;
    // the registry and the broker deliver at least once, so a fourth may come too).
    await().atMost(Duration.ofSeconds(20)).until(() -> duplicates.get() + processed.get() >= 3);

    assertThat(processed.get()).isZero();
    assertThat(duplicates.get()).isGreaterThanOrEqualTo(3);
    assertThat(points(orderNo)).isEqualTo(1);
    assertThat(count("SELECT points FROM loyalty_points WHERE order_no = ?", orderNo))
        .isEqualTo(20);
  }

  private long points(String orderNo) {
    return count("SELECT COUNT(*) FROM loyalty_points WHERE order_no = ?", orderNo);
  }

  private long incompleteOf(String orderNo) {
    return count(
        "SELECT COUNT(*) FROM EVENT_PUBLICATION WHERE completion_date IS NULL"
            + " AND serialized_event LIKE ?",
        "%" + orderNo + "%");
  }
}
