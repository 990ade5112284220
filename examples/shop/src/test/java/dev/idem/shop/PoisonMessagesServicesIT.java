package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.shop.messaging.PaymentSucceeded;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.TestPropertySource;

/** Messages the loyalty consumer can never apply go to the dead-letter queue, once. */
@ActiveProfiles("services")
@TestPropertySource(locations = "classpath:services-it.properties")
class PoisonMessagesServicesIT extends EndToEnd {

  static {
    ServicesDatabase.recreateOnce();
  }

  @Autowired RabbitTemplate rabbit;

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
