package dev.idem.spring.amqp.internal;

import com.rabbitmq.client.Channel;
import java.util.List;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.Message;

/**
 * Listener container advice (it wraps the container's {@code invokeListener(Channel, Object)}):
 * makes the message being handed to the listener, or the messages of a consumer batch, and their
 * channel visible to the {@code @IdempotentListener} advice further down on the same thread. A
 * method advice only sees the method's arguments, which need not include the messages' properties.
 */
public final class DeliveryBinder implements MethodInterceptor {

  /**
   * The messages on their way to a listener: one, or a consumer batch's in their order.
   *
   * @param batch whether the container hands the listener a list (a batch of one included)
   */
  public record RabbitDelivery(List<Message> messages, Channel channel, boolean batch) {

    /** The message of a delivery that is not a batch. */
    public Message message() {
      return messages.get(0);
    }
  }

  private final ThreadLocal<RabbitDelivery> current = new ThreadLocal<>();

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    @Nullable Object[] args = invocation.getArguments();
    RabbitDelivery delivery =
        args.length == 2 && args[0] instanceof Channel channel ? delivery(channel, args[1]) : null;
    if (delivery == null) {
      return invocation.proceed();
    }
    current.set(delivery);
    try {
      return invocation.proceed();
    } finally {
      current.remove();
    }
  }

  private static @Nullable RabbitDelivery delivery(Channel channel, @Nullable Object data) {
    if (data instanceof Message message) {
      return new RabbitDelivery(List.of(message), channel, false);
    }
    if (data instanceof List<?> list
        && !list.isEmpty()
        && list.stream().allMatch(Message.class::isInstance)) {
      return new RabbitDelivery(list.stream().map(Message.class::cast).toList(), channel, true);
    }
    return null;
  }

  /** The delivery being handled on this thread, or null outside a listener container. */
  public @Nullable RabbitDelivery current() {
    return current.get();
  }
}
