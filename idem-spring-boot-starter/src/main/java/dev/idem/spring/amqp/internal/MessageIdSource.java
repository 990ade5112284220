package dev.idem.spring.amqp.internal;

import com.rabbitmq.client.Channel;
import dev.idem.spring.messaging.internal.MessageKey;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
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

  private final MessageKey key;
  private final int payloadIndex;

  /**
   * @param expression the key expression; empty for the {@code message-id} property
   * @throws org.springframework.expression.ParseException when the expression does not parse
   */
  MessageIdSource(Method method, String expression, BeanFactory beanFactory) {
    this.key = new MessageKey(method, expression, beanFactory);
    this.payloadIndex = payloadIndex(method);
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
   * @throws org.springframework.expression.EvaluationException when the expression fails
   */
  @Nullable String idOf(Message message, @Nullable Object[] args) {
    return evaluate(message, payloadIndex < 0 ? null : payloadOf(args[payloadIndex]), args);
  }

  /**
   * The id of {@code message}, one of a batch, whose element of the listener's list is {@code
   * element}; null when it has none.
   *
   * @throws org.springframework.expression.EvaluationException when the expression fails
   */
  @Nullable String idOf(Message message, @Nullable Object element, @Nullable Object[] args) {
    return evaluate(message, payloadOf(element), args);
  }

  private @Nullable String evaluate(
      Message message, @Nullable Object payload, @Nullable Object[] args) {
    if (key.isDefault()) {
      return message.getMessageProperties().getMessageId();
    }
    return key.evaluate(new ListenerMessage(message, payload), args);
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
