package dev.idem.spring.amqp.internal;

import com.rabbitmq.client.Channel;
import java.lang.reflect.Method;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;

/**
 * Where one listener's message ids come from: the AMQP {@code message-id} property, or a SpEL
 * expression over the message and the method's arguments.
 */
final class MessageIdSource {

  private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

  private final Method method;
  private final Expression expression;
  private final int payloadIndex;
  private final BeanFactory beanFactory;

  /**
   * @param expression the key expression; empty for the {@code message-id} property
   * @throws org.springframework.expression.ParseException when the expression does not parse
   */
  MessageIdSource(Method method, String expression, BeanFactory beanFactory) {
    this.method = method;
    this.expression =
        expression.isEmpty() ? null : new SpelExpressionParser().parseExpression(expression);
    this.payloadIndex = payloadIndex(method);
    this.beanFactory = beanFactory;
  }

  /** A description for logs: the expression, or {@code message-id}. */
  String describe() {
    return expression == null ? "message-id" : "key '" + expression.getExpressionString() + "'";
  }

  /**
   * The id of {@code message}, or null when it has none.
   *
   * @throws org.springframework.expression.EvaluationException when the expression fails
   */
  String idOf(Message message, Object[] args) {
    if (expression == null) {
      return message.getMessageProperties().getMessageId();
    }
    Object payload = payloadIndex < 0 ? null : payloadOf(args[payloadIndex]);
    MethodBasedEvaluationContext context =
        new MethodBasedEvaluationContext(
            new ListenerMessage(message, payload), method, args, NAMES);
    context.setBeanResolver(new BeanFactoryResolver(beanFactory));
    Object value = expression.getValue(context);
    return value == null ? null : value.toString();
  }

  private static Object payloadOf(Object arg) {
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
