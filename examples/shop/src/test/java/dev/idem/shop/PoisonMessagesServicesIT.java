package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.shop.messaging.PaymentSucceeded;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.TopicExchange;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/**
 * Messages the loyalty consumer can never apply go to the dead-letter queue, once; an event the
 * relay could not route to the queue is not taken for delivered.
 */
@ActiveProfiles("services")
@TestPropertySource(locations = "classpath:services-it.properties")
class PoisonMessagesServicesIT extends EndToEnd {

  static {
    ServicesDatabase.recreateOnce();
  }

  @Autowired RabbitTemplate rabbit;
  @Autowired AmqpAdmin admin;

  @Value("${shop.rabbit.exchange}")
  String exchange;

  @Value("${shop.rabbit.queue}")
  String queue;

  @Test
  void aMessageWithoutAnIdIsDeadLetteredInsteadOfRequeued() {
    send(
        null,
        "{\"paymentNo\":\"PAY-x\",\"orderNo\":\"ORD-x\",\"username\":\"alice\","
            + "\"amount\":1.00}");

    Message dead = rabbit.receive(queue + ".dlq", 20_000);

    assertThat(dead).isNotNull();
    assertThat(new String(dead.getBody(), StandardCharsets.UTF_8)).contains("PAY-x");
  }

  @Test
  void aMessageThatIsNotTheEventIsDeadLetteredInsteadOfRequeued() {
    String id = "poison-" + key();
    send(id, "not json at all");

    Message dead = rabbit.receive(queue + ".dlq", 20_000);

    assertThat(dead).isNotNull();
    assertThat(dead.getMessageProperties().getMessageId()).isEqualTo(id);
  }

  @Test
  void anEventNoQueueTookStaysIncompleteAndArrivesOnceTheQueueIsBoundAgain() {
    Binding binding =
        BindingBuilder.bind(new Queue(queue))
            .to(new TopicExchange(exchange))
            .with(PaymentSucceeded.TOPIC);
    String orderNo = alice.order("STICKER", 1);
    admin.removeBinding(binding);
    try {
      assertThat(alice.pay(orderNo, "WALLET", key()).text("status")).isEqualTo("SUCCESS");
      // the broker returned the message: the relay failed, and the registry says so
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  count(
                      "SELECT COUNT(*) FROM EVENT_PUBLICATION WHERE status = 'FAILED'"
                          + " AND serialized_event LIKE ?",
                      "%" + orderNo + "%"),
              n -> n == 1);
      assertThat(points(orderNo)).isZero();
    } finally {
      admin.declareBinding(binding);
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> points(orderNo), n -> n == 1);
  }

  private long points(String orderNo) {
    return count("SELECT COUNT(*) FROM loyalty_points WHERE order_no = ?", orderNo);
  }

  private void send(String id, String body) {
    MessageProperties properties = new MessageProperties();
    properties.setMessageId(id);
    properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
    rabbit.send(
        exchange,
        PaymentSucceeded.TOPIC,
        MessageBuilder.withBody(body.getBytes(StandardCharsets.UTF_8))
            .andProperties(properties)
            .build());
  }
}
