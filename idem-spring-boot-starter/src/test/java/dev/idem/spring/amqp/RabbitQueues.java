package dev.idem.spring.amqp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.batch.SimpleBatchingStrategy;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.BatchingRabbitTemplate;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The tests' own view of the real RabbitMQ: declares queues named {@code idem-it-<name>-<random>},
 * publishes to them, reads their depth, and deletes them at {@link #close()}.
 */
final class RabbitQueues implements AutoCloseable {

  private final CachingConnectionFactory connections =
      new CachingConnectionFactory(AmqpTestApplication.RABBIT_HOST);
  private final RabbitAdmin admin = new RabbitAdmin(connections);
  private final RabbitTemplate template = new RabbitTemplate(connections);
  private final List<String> declared = new ArrayList<>();
  private final String suffix = UUID.randomUUID().toString().substring(0, 8);

  /** Declares a durable queue; {@code deadLetters} names the queue rejected messages go to. */
  String declare(String name, String deadLetters) {
    Queue queue = new Queue("idem-it-" + name + "-" + suffix, true, false, false);
    if (deadLetters != null) {
      queue.getArguments().put("x-dead-letter-exchange", "");
      queue.getArguments().put("x-dead-letter-routing-key", deadLetters);
    }
    admin.declareQueue(queue);
    declared.add(queue.getName());
    return queue.getName();
  }

  /** Publishes a text message; {@code messageId} null leaves the property unset. */
  void publish(String queue, String body, String messageId, Map<String, Object> headers) {
    MessageProperties properties = new MessageProperties();
    properties.setContentType(MessageProperties.CONTENT_TYPE_TEXT_PLAIN);
    properties.setContentEncoding("UTF-8");
    properties.setMessageId(messageId);
    headers.forEach(properties::setHeader);
    Message message = new Message(body.getBytes(StandardCharsets.UTF_8), properties);
    template.send("", queue, message);
  }

  /**
   * Publishes {@code bodies} as one message, a producer's batch that the consumer's container
   * splits again ({@link BatchingRabbitTemplate}): the delivery carries the properties of its first
   * message, so all of them share the first's {@code message-id}.
   */
  void publishBatch(String queue, List<String> bodies) {
    ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
    scheduler.initialize();
    try {
      BatchingRabbitTemplate batching =
          new BatchingRabbitTemplate(
              connections,
              new SimpleBatchingStrategy(bodies.size(), Integer.MAX_VALUE, 60_000),
              scheduler);
      for (String body : bodies) {
        MessageProperties properties = new MessageProperties();
        properties.setContentType(MessageProperties.CONTENT_TYPE_TEXT_PLAIN);
        properties.setContentEncoding("UTF-8");
        properties.setMessageId(body);
        batching.send("", queue, new Message(body.getBytes(StandardCharsets.UTF_8), properties));
      }
      batching.flush();
    } finally {
      scheduler.shutdown();
    }
  }

  /** Messages ready in {@code queue} (not counting those delivered and not yet acknowledged). */
  long depth(String queue) {
    Properties properties = admin.getQueueProperties(queue);
    Object count = properties.get(RabbitAdmin.QUEUE_MESSAGE_COUNT);
    return ((Number) count).longValue();
  }

  @Override
  public void close() {
    try {
      declared.forEach(admin::deleteQueue);
    } finally {
      connections.destroy();
    }
  }
}
