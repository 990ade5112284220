package dev.idem.spring.amqp.internal;

import com.rabbitmq.client.Channel;
import dev.idem.spring.messaging.internal.MessageKey;
import java.lang.reflect.Method;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;

/**
 * Where one listener's message ids come from: the AMQP {@code message-id} property, or a SpEL
 * expression over the message and the method's arguments.
 */
final class MessageIdSource {

  private static final Logger log = LoggerFactory.getLogger(MessageIdSource.class);

  private final MessageKey key;
  private final int payloadIndex;
  private final String describeMethod;
  private final AtomicBoolean warnedOfFragments = new AtomicBoolean();

  /**
   * @param expression the key expression; empty for the {@code message-id} property
   * @throws org.springframework.expression.ParseException when the expression does not parse
   */
  MessageIdSource(Method method, String expression, BeanFactory beanFactory) {
    this.key = new MessageKey(method, expression, beanFactory);
    this.payloadIndex = payloadIndex(method);
    this.describeMethod = method.getDeclaringClass().getSimpleName() + "." + method.getName();
  }

  /** Whether the ids are the {@code message-id} property (no key expression). */
  boolean byMessageId() {
    return key.isDefault();
  }

  /** A description for logs: the expression, or {@code message-id}. */
  String describe() {
    return key.describe("message-id");
  }

  /**
   * The id of {@code message}, or null when it has none.
   *
   * @param fragment the message's place among those split from its delivery ({@link
   *     DeliveryBinder.RabbitDelivery#fragments})
   * @throws org.springframework.expression.EvaluationException when the expression fails
   */
  @Nullable String idOf(Message message, int fragment, @Nullable Object[] args) {
    return evaluate(
        message, fragment, payloadIndex < 0 ? null : payloadOf(args[payloadIndex]), args);
  }

  /**
   * The id of {@code message}, one of a batch, whose element of the listener's list is {@code
   * element}; null when it has none.
   *
   * @throws org.springframework.expression.EvaluationException when the expression fails
   */
  @Nullable String idOf(
      Message message, int fragment, @Nullable Object element, @Nullable Object[] args) {
    return evaluate(message, fragment, payloadOf(element), args);
  }

  // The messages split from one delivery (a producer's batch) all carry the delivery's message-id:
  // each after the first is told apart by its place and its body, which are the same whenever the
  // same delivery comes again.
  private @Nullable String evaluate(
      Message message, int fragment, @Nullable Object payload, @Nullable Object[] args) {
    if (key.isDefault()) {
      String id = message.getMessageProperties().getMessageId();
      if (id == null || id.isEmpty() || fragment == 0) {
        return id;
      }
      if (!warnedOfFragments.getAndSet(true)) {
        log.warn(
            "{} gets messages split from one delivery (a producer's batch), which share its"
                + " message-id: each after the first is known by its place in the delivery and its"
                + " body, so a message the producer sends again in another batch runs again. Give"
                + " @IdempotentListener a key over the payload to match them by content (logged"
                + " once)",
            describeMethod);
      }
      return id + "#" + fragment + ":" + bodyDigest(message.getBody());
    }
    return key.evaluate(new ListenerMessage(message, payload), args);
  }

  // 128 bits of the body's SHA-256, in hex
  private static String bodyDigest(byte[] body) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(body);
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  // a list of AMQP messages has no payload apart from them; a Spring message carries its own
  private static @Nullable Object payloadOf(@Nullable Object arg) {
    if (arg instanceof Message) {
      return null;
    }
    return arg instanceof org.springframework.messaging.Message<?> m ? m.getPayload() : arg;
  }

  /** The first parameter Spring AMQP fills with the payload rather than with a message part. */
  private static int payloadIndex(Method method) {
    Class<?>[] types = method.getParameterTypes();
    for (int i = 0; i < types.length; i++) {
      MergedAnnotations annotations = MergedAnnotations.from(method.getParameters()[i]);
      boolean part =
          Message.class.isAssignableFrom(types[i])
              || MessageProperties.class.isAssignableFrom(types[i])
              || Channel.class.isAssignableFrom(types[i])
              || annotations.isPresent(Header.class)
              || annotations.isPresent(Headers.class);
      if (!part) {
        return i;
      }
    }
    return -1;
  }
}
