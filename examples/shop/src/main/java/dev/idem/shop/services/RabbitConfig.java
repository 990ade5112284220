package dev.idem.shop.services;

import dev.idem.shop.messaging.LoyaltyPoints;
import dev.idem.shop.messaging.PaymentSucceeded;
import dev.idem.shop.messaging.UnreadableMessageException;
import dev.idem.spring.messaging.IdempotentListener;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.core.TopicExchange;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.modulith.events.ApplicationModuleListener;
import org.springframework.transaction.annotation.Propagation;
import tools.jackson.databind.json.JsonMapper;

/**
 * Profile services: a listener of Spring Modulith's event publication registry relays each
 * payment's event to a RabbitMQ topic exchange, and the loyalty consumer listens on a durable
 * queue. The message id is the event id; the listener acknowledges after the transaction of the
 * points and the dedup record committed, and a failure (the database) sends the message back to the
 * queue. A message that can never be applied (no id, not the event) is rejected without requeue and
 * goes to the dead-letter queue {@code <queue>.dlq} through the direct exchange {@code
 * <queue>.dlx}.
 */
@Configuration
@Profile("services")
class RabbitConfig {

  @Bean
  Declarables loyaltyTopology(
      @Value("${shop.rabbit.exchange}") String exchange,
      @Value("${shop.rabbit.queue}") String queue) {
    TopicExchange events = new TopicExchange(exchange, true, false);
    DirectExchange deadLetters = new DirectExchange(queue + ".dlx", true, false);
    Queue dead = QueueBuilder.durable(queue + ".dlq").build();
    Queue loyalty =
        QueueBuilder.durable(queue)
            .deadLetterExchange(deadLetters.getName())
            .deadLetterRoutingKey(dead.getName())
            .build();
    return new Declarables(
        events,
        deadLetters,
        dead,
        loyalty,
        BindingBuilder.bind(loyalty).to(events).with(PaymentSucceeded.TOPIC),
        BindingBuilder.bind(dead).to(deadLetters).with(dead.getName()));
  }

  @Bean
  LoyaltyRelay loyaltyRelay(
      RabbitTemplate rabbit, JsonMapper json, @Value("${shop.rabbit.exchange}") String exchange) {
    return new LoyaltyRelay(rabbit, json, exchange);
  }

  /**
   * Sends each payment's event to the exchange once the payment committed, with the event id as the
   * message id, and returns only when the broker confirmed it: Spring Modulith's registry marks the
   * publication complete after this listener returns, and resubmits it when it threw or its process
   * died. A message may therefore go out twice; the queue's consumer deduplicates by its id.
   */
  public static class LoyaltyRelay {
    private final RabbitTemplate rabbit;
    private final JsonMapper json;
    private final String exchange;

    LoyaltyRelay(RabbitTemplate rabbit, JsonMapper json, String exchange) {
      this.rabbit = rabbit;
      this.json = json;
      this.exchange = exchange;
    }

    /**
     * No transaction of its own: it writes nothing but the message. Returns only when the broker
     * confirmed the message and routed it to a queue (mandatory): an unroutable message (no queue
     * bound) comes back, and the listener fails rather than mark the publication complete.
     */
    @ApplicationModuleListener(propagation = Propagation.NOT_SUPPORTED)
    public void relay(PaymentSucceeded event) {
      MessageProperties properties = new MessageProperties();
      properties.setMessageId(event.eventId());
      properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
      byte[] body = json.writeValueAsString(event).getBytes(StandardCharsets.UTF_8);
      CorrelationData sent = new CorrelationData(event.eventId());
      rabbit.send(
          exchange,
          PaymentSucceeded.TOPIC,
          MessageBuilder.withBody(body).andProperties(properties).build(),
          sent);
      CorrelationData.Confirm confirm;
      try {
        confirm = sent.getFuture().get(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AmqpException("interrupted waiting for the broker's confirm", e);
      } catch (ExecutionException | TimeoutException e) {
        throw new AmqpException("no confirm from the broker for " + event.eventId(), e);
      }
      if (!confirm.ack()) {
        throw new AmqpException("the broker refused " + event.eventId() + ": " + confirm.reason());
      }
      if (sent.getReturned() != null) {
        throw new AmqpException(
            event.eventId() + " reached no queue: " + sent.getReturned().getReplyText());
      }
    }
  }

  @Bean
  LoyaltyListener loyaltyListener(LoyaltyPoints points, JdbcTemplate jdbc) {
    return new LoyaltyListener(points, jdbc);
  }

  /**
   * Applies each delivery once per message id: the starter's listener advice claims the id in a
   * transaction on the shop's database ({@code idem.amqp.store: jdbc}, while Redis keeps the HTTP
   * keys), the points are written in it, and the message is acknowledged after it committed.
   */
  public static class LoyaltyListener {
    private final LoyaltyPoints points;
    private final JdbcTemplate jdbc;

    LoyaltyListener(LoyaltyPoints points, JdbcTemplate jdbc) {
      this.points = points;
      this.jdbc = jdbc;
    }

    /** Public, and the class not final: the bean is proxied for the advice. */
    @IdempotentListener(LoyaltyPoints.GROUP)
    @RabbitListener(queues = "${shop.rabbit.queue}")
    public void onMessage(org.springframework.amqp.core.Message delivery) {
      MessageProperties properties = delivery.getMessageProperties();
      if (!PaymentSucceeded.TOPIC.equals(properties.getReceivedRoutingKey())) {
        return;
      }
      PaymentSucceeded event;
      try {
        event =
            points.read(
                properties.getMessageId(), new String(delivery.getBody(), StandardCharsets.UTF_8));
      } catch (UnreadableMessageException e) {
        throw new AmqpRejectAndDontRequeueException(e.getMessage(), e);
      }
      jdbc.execute(
          (ConnectionCallback<Void>)
              c -> {
                points.add(c, event);
                return null;
              });
    }
  }
}
