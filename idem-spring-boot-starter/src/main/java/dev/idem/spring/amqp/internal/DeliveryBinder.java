package dev.idem.spring.amqp.internal;

import com.rabbitmq.client.Channel;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;

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
   * @param fragments for each message, its place among the messages the container split from one
   *     delivery (a producer's batch, which shares one delivery tag and one {@code message-id}): 0
   *     for a message delivered alone and for the first of a split delivery
   * @param batch whether the container hands the listener a list (a batch of one included)
   */
  public record RabbitDelivery(
      List<Message> messages, List<Integer> fragments, Channel channel, boolean batch) {

    /** The message of a delivery that is not a batch. */
    public Message message() {
      return messages.get(0);
    }
  }

  // The last message handed to a listener on this thread: the next one is a fragment of the same
  // delivery when it comes on the same channel with the same tag. The container hands a split
  // delivery's fragments on one after another, all but the last sharing one MessageProperties
  // and the last a copy marked lastInBatch. The message itself is held weakly: its body may be
  // large, and it is only compared with the next one.
  private record Previous(
      Channel channel,
      WeakReference<Message> message,
      MessageProperties properties,
      int fragment) {}

  private final ThreadLocal<RabbitDelivery> current = new ThreadLocal<>();
  private final ThreadLocal<@Nullable Previous> previous = new ThreadLocal<>();

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

  private @Nullable RabbitDelivery delivery(Channel channel, @Nullable Object data) {
    if (data instanceof Message message) {
      return new RabbitDelivery(
          List.of(message), List.of(fragmentOf(channel, message)), channel, false);
    }
    if (data instanceof List<?> list
        && !list.isEmpty()
        && list.stream().allMatch(Message.class::isInstance)) {
      List<Message> messages = list.stream().map(Message.class::cast).toList();
      // a consumer batch holds every fragment of a split delivery
      Map<Long, Integer> seen = new HashMap<>();
      List<Integer> fragments = new ArrayList<>(messages.size());
      for (Message message : messages) {
        fragments.add(seen.merge(ManualAcks.tag(message), 1, Integer::sum) - 1);
      }
      return new RabbitDelivery(messages, fragments, channel, true);
    }
    return null;
  }

  private int fragmentOf(Channel channel, Message message) {
    Previous last = previous.get();
    if (last != null && last.message().get() == message) {
      return last.fragment(); // handed on again by an advice outside this one
    }
    MessageProperties properties = message.getMessageProperties();
    int fragment =
        last != null
                && last.channel() == channel
                && last.properties().getDeliveryTag() == properties.getDeliveryTag()
                && (last.properties() == properties || properties.isLastInBatch())
            ? last.fragment() + 1
            : 0;
    previous.set(new Previous(channel, new WeakReference<>(message), properties, fragment));
    return fragment;
  }

  /** The delivery being handled on this thread, or null outside a listener container. */
  public @Nullable RabbitDelivery current() {
    return current.get();
  }
}
