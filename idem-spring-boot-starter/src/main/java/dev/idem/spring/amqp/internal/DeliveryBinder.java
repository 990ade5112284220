package dev.idem.spring.amqp.internal;

import com.rabbitmq.client.Channel;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.Message;

/**
 * Listener container advice (it wraps the container's {@code invokeListener(Channel, Object)}):
 * makes the message being handed to the listener, and its channel, visible to the
 * {@code @IdempotentListener} advice further down on the same thread. A method advice only sees the
 * method's arguments, which need not include the message's properties.
 */
public final class DeliveryBinder implements MethodInterceptor {

  /** One message on its way to a listener. */
  public record RabbitDelivery(Message message, Channel channel) {}

  private final ThreadLocal<RabbitDelivery> current = new ThreadLocal<>();

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    @Nullable Object[] args = invocation.getArguments();
    if (args.length != 2
        || !(args[0] instanceof Channel channel)
        || !(args[1] instanceof Message message)) {
      return invocation.proceed(); // a batch: no single delivery to key
    }
    current.set(new RabbitDelivery(message, channel));
    try {
      return invocation.proceed();
    } finally {
      current.remove();
    }
  }

  /** The delivery being handled on this thread, or null outside a listener container. */
  public RabbitDelivery current() {
    return current.get();
  }
}
