package dev.idem.spring.amqp.internal;

import dev.idem.core.Fingerprint;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.spring.amqp.internal.DeliveryBinder.RabbitDelivery;
import dev.idem.spring.messaging.internal.ListenerBeans;
import dev.idem.spring.messaging.internal.ListenerMethods;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.listener.support.ContainerUtils;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationException;

/**
 * The advice around {@code @IdempotentListener} methods: finds the message id, runs the method once
 * per {@code (group, id)} through core's {@link IdempotentConsumer} (in a transaction when the
 * store joins them), and refuses messages without an id. A consumer batch goes to {@link
 * BatchListenerAdvice}.
 */
final class IdempotentListenerInterceptor implements MethodInterceptor {

  private static final Logger log = LoggerFactory.getLogger(IdempotentListenerInterceptor.class);

  /** What the advice knows about one listener method. */
  record Listener(
      String group, IdempotentConsumer consumer, MessageIdSource ids, boolean manualAck) {}

  private final DeliveryBinder binder;
  private final ListenerBeans engine;
  private final BatchListenerAdvice batches;
  private final Map<Method, Listener> listeners = new ConcurrentHashMap<>();

  IdempotentListenerInterceptor(DeliveryBinder binder, ListenerBeans engine) {
    this.binder = binder;
    this.engine = engine;
    this.batches = new BatchListenerAdvice(engine);
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    RabbitDelivery delivery = binder.current();
    if (delivery == null) {
      throw ListenerMethods.outsideContainer(
          invocation.getMethod(), "the AMQP message being delivered");
    }
    Listener listener = listeners.computeIfAbsent(invocation.getMethod(), this::listener);
    if (delivery.batch()) {
      return batches.invoke(invocation, listener, delivery);
    }
    String id =
        messageId(
            listener, delivery.message(), delivery.fragments().get(0), invocation.getArguments());
    @Nullable Object[] result = new Object[1];
    try {
      IdempotentConsumer.Delivery outcome =
          engine.inTransaction(
              () ->
                  listener
                      .consumer()
                      .process(
                          id,
                          Fingerprint.NONE,
                          ctx -> {
                            result[0] = ListenerMethods.proceed(invocation);
                            return null;
                          },
                          engine.deferral()));
      if (outcome == IdempotentConsumer.Delivery.DUPLICATE) {
        log.debug("message {} was processed before by group {}", id, listener.group());
      }
    } catch (Exception | Error e) {
      // a rejectManual failure asks the container to reject the delivery itself; a nack here
      // would settle the tag first and the container's reject would then close the channel. A
      // failed part of a split delivery requeues all of it: the container hands on none of the
      // parts after it, and the parts before it are duplicates when it comes again.
      if (listener.manualAck() && !ContainerUtils.isRejectManual(e)) {
        ManualAcks.requeue(delivery.channel(), delivery.messages());
      }
      throw e;
    }
    // a delivery split by the container is settled once, with its last part
    if (listener.manualAck() && !earlierPart(delivery.message())) {
      ManualAcks.ackAfterCommit(delivery.channel(), delivery.messages());
    }
    return result[0];
  }

  /**
   * Whether {@code message} is a part, not the last, of a delivery the container split (a
   * producer's batch): the container marks the last part and removes the batch's format header from
   * all of them, while each keeps the batch's size. A batch the container hands on whole keeps its
   * format header, and is settled as one message.
   */
  private static boolean earlierPart(Message message) {
    MessageProperties properties = message.getMessageProperties();
    return !properties.isLastInBatch()
        && properties.getHeader(AmqpHeaders.BATCH_SIZE) != null
        && properties.getHeader(MessageProperties.SPRING_BATCH_FORMAT) == null;
  }

  private Listener listener(Method method) {
    Method target = AopUtils.getMostSpecificMethod(method, method.getDeclaringClass());
    String group = ListenerMethods.group(target, engine);
    return new Listener(
        group,
        engine.consumer(group, false),
        new MessageIdSource(
            target,
            Objects.requireNonNull(ListenerMethods.annotation(target)).key(),
            engine.beanFactory()),
        manualAck(target));
  }

  /** True when the listener's container acknowledges nothing itself (ackMode MANUAL). */
  private boolean manualAck(Method method) {
    RabbitListener listener =
        AnnotatedElementUtils.findMergedAnnotation(method, RabbitListener.class);
    if (listener == null) {
      listener =
          AnnotatedElementUtils.findMergedAnnotation(
              method.getDeclaringClass(), RabbitListener.class);
    }
    if (listener == null || listener.ackMode().isEmpty()) {
      return false;
    }
    String mode = engine.beanFactory().resolveEmbeddedValue(listener.ackMode());
    return AcknowledgeMode.MANUAL.name().equalsIgnoreCase(mode);
  }

  /** How a message's id is found: by the listener's {@link MessageIdSource}. */
  @FunctionalInterface
  interface IdLookup {
    @Nullable String id();
  }

  private String messageId(
      Listener listener, Message message, int fragment, @Nullable Object[] args) {
    return messageId(listener, message, () -> listener.ids().idOf(message, fragment, args));
  }

  /**
   * The id {@code lookup} finds for {@code message}.
   *
   * @throws AmqpRejectAndDontRequeueException (logged) when it finds none or fails
   */
  static String messageId(Listener listener, Message message, IdLookup lookup) {
    String id;
    try {
      id = lookup.id();
    } catch (EvaluationException e) {
      log.error(
          "refused a message on queue {} (delivery tag {}) for consumer group {}: its {} failed;"
              + " rejected without requeue",
          queue(message),
          tag(message),
          listener.group(),
          listener.ids().describe(),
          e);
      throw new AmqpRejectAndDontRequeueException(
          "the message id could not be computed: " + e.getMessage(), true, e);
    }
    if (id == null || id.isEmpty()) {
      log.warn(
          "refused a message on queue {} (delivery tag {}) for consumer group {}: it has no {};"
              + " rejected without requeue",
          queue(message),
          tag(message),
          listener.group(),
          listener.ids().describe());
      throw new AmqpRejectAndDontRequeueException(
          "message has no id",
          true,
          InvalidKeyException.missing(
              "message for consumer group " + listener.group() + " has no id"));
    }
    return id;
  }

  private static long tag(Message message) {
    return ManualAcks.tag(message);
  }

  private static @Nullable String queue(Message message) {
    MessageProperties properties = message.getMessageProperties();
    return properties.getConsumerQueue();
  }
}
