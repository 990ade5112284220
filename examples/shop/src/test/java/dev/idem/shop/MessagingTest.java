package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.ExecutionOutcome;
import dev.idem.shop.messaging.LoyaltyDeliveries;
import dev.idem.shop.messaging.Message;
import dev.idem.shop.messaging.MessageBus;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

class MessagingTest extends EndToEnd {

  @Autowired MessageBus bus;
  @Autowired LoyaltyDeliveries loyalty;

  @Test
  void aPaymentEventDeliveredAgainGivesItsPointsOnce() {
    String orderNo = alice.order("STICKER", 10);
    assertThat(alice.pay(orderNo, "WALLET", key()).text("status")).isEqualTo("SUCCESS");
    await().atMost(Duration.ofSeconds(20)).until(() -> points(orderNo) == 1);
    Message sent =
        jdbc.queryForObject(
            "SELECT event_id, topic, payload FROM outbox WHERE payload LIKE ?",
            (rs, i) -> new Message(rs.getString(1), rs.getString(2), rs.getString(3)),
            "%" + orderNo + "%");

    AtomicInteger duplicates = new AtomicInteger();
    AtomicInteger processed = new AtomicInteger();
    loyalty.observe(
        (id, outcome) -> {
          if (id.equals(sent.id())) {
            (outcome == ExecutionOutcome.REPLAYED ? duplicates : processed).incrementAndGet();
          }
        });

    bus.publish(sent);
    bus.publish(sent);
    // The relay lost its note that it had sent the message, as after a crash: it sends it again.
    jdbc.update("UPDATE outbox SET published_at = NULL WHERE event_id = ?", sent.id());
    // Three more deliveries reach the consumer (over RabbitMQ, later than the broker confirms).
    await().atMost(Duration.ofSeconds(20)).until(() -> duplicates.get() + processed.get() >= 3);

    assertThat(processed.get()).isZero();
    assertThat(duplicates.get()).isEqualTo(3);
    assertThat(points(orderNo)).isEqualTo(1);
    assertThat(count("SELECT points FROM loyalty_points WHERE order_no = ?", orderNo))
        .isEqualTo(20);
  }

  private long points(String orderNo) {
    return count("SELECT COUNT(*) FROM loyalty_points WHERE order_no = ?", orderNo);
  }
}
