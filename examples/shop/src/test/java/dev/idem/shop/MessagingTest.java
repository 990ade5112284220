package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.shop.messaging.Message;
import dev.idem.shop.messaging.MessageBus;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

class MessagingTest extends EndToEnd {

  @Autowired MessageBus bus;

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

    bus.publish(sent);
    bus.publish(sent);
    // The relay lost its note that it had sent the message, as after a crash: it sends it again.
    jdbc.update("UPDATE outbox SET published_at = NULL WHERE event_id = ?", sent.id());
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count(
                        "SELECT COUNT(*) FROM outbox WHERE event_id = ? AND published_at IS NOT NULL",
                        sent.id())
                    == 1);

    assertThat(points(orderNo)).isEqualTo(1);
    assertThat(count("SELECT points FROM loyalty_points WHERE order_no = ?", orderNo))
        .isEqualTo(20);
  }

  private long points(String orderNo) {
    return count("SELECT COUNT(*) FROM loyalty_points WHERE order_no = ?", orderNo);
  }
}
