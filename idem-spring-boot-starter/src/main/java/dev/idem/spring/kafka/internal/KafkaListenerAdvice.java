package dev.idem.spring.kafka.internal;

import dev.idem.core.Fingerprint;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.PendingOutcome;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.spring.kafka.internal.RecordBinder.Delivery;
import dev.idem.spring.messaging.internal.ListenerEngine;
import dev.idem.spring.messaging.internal.ListenerMethods;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.expression.EvaluationException;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.support.Acknowledgment;

/**
 * The advice around {@code @IdempotentListener} methods of Kafka listeners. Each record's message
 * id is claimed first (in a transaction when the store joins them); a record listener runs only for
 * a record not processed before, a batch listener gets the list without the records processed
 * before (and is not called when none is left). The claims are completed once the method returned,
 * or after the surrounding transaction committed, and released when it throws.
 */
final class KafkaListenerAdvice implements MethodInterceptor {

  private static final Logger log = LoggerFactory.getLogger(KafkaListenerAdvice.class);

  /** What the advice knows about one listener method; its consumer is made at the first call. */
  private record Listener(String group, KafkaListenerMethod method) {}

  private final RecordBinder binder;
  private final ListenerEngine engine;
  private final Map<Method, Listener> listeners = new ConcurrentHashMap<>();
  private final Map<String, IdempotentConsumer> consumers = new ConcurrentHashMap<>();

  KafkaListenerAdvice(RecordBinder binder, ListenerEngine engine) {
    this.binder = binder;
    this.engine = engine;
  }

  /**
   * Reads what the advice needs from {@code method} at start-up, before the engine exists.
   *
   * @throws IllegalStateException when the method cannot be advised
   */
  void register(Method method) {
    listeners.computeIfAbsent(method, this::listener);
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Delivery delivery = binder.current();
    if (delivery == null) {
      throw ListenerMethods.outsideContainer(
          invocation.getMethod(), "the Kafka records being delivered");
    }
    Listener listener = listeners.computeIfAbsent(invocation.getMethod(), this::listener);
    Object[] args = invocation.getArguments();
    List<ConsumerRecord<?, ?>> records = delivery.records();
    List<?> batch = delivery.batch() ? listener.method().batch(args, records.size()) : null;
    List<String> ids = new ArrayList<>(records.size());
    RuntimeException refused = null;
    for (int i = 0; i < records.size() && refused == null; i++) {
      Object payload =
          batch == null
              ? listener.method().payload(args)
              : KafkaListenerMethod.payloadOf(batch.get(i));
      try {
        ids.add(messageId(listener, records.get(i), payload, args));
      } catch (RuntimeException e) {
        refused = batch == null ? e : new BatchListenerFailedException(e.getMessage(), e, i);
      }
    }
    if (refused != null && ids.isEmpty()) {
      throw refused;
    }
    // a batch with a record without an id: the records before it are handled, then the error
    // handler is told which record failed, so that it commits those and deals with that one
    List<?> handled = batch == null ? null : batch.subList(0, ids.size());
    Object result = engine.inTransaction(() -> run(invocation, listener, ids, handled));
    if (refused != null) {
      throw refused;
    }
    return result;
  }

  private Object run(
      MethodInvocation invocation, Listener listener, List<String> ids, List<?> batch)
      throws Exception {
    List<PendingOutcome> held = new ArrayList<>();
    boolean succeeded = false;
    try {
      List<Object> fresh = claim(listener, ids, batch, held);
      Object result = null;
      Object[] args = invocation.getArguments();
      if (fresh.isEmpty()) {
        log.debug("{} message(s) were processed before by group {}", ids.size(), listener.group());
        int ack = listener.method().ackIndex();
        if (ack >= 0 && args[ack] instanceof Acknowledgment acknowledgment) {
          acknowledgment.acknowledge();
        }
      } else {
        if (batch != null) {
          args[listener.method().payloadIndex()] = fresh;
        }
        result = ListenerMethods.proceed(invocation);
      }
      succeeded = true;
      return result;
    } finally {
      settle(held, succeeded);
    }
  }

  /**
   * Claims every distinct id; returns the batch elements whose claim succeeded (for a record
   * listener, a one-element list when it did), and adds each claim's held outcome to {@code held}.
   */
  private List<Object> claim(
      Listener listener, List<String> ids, List<?> batch, List<PendingOutcome> held) {
    List<Object> fresh = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < ids.size(); i++) {
      if (!seen.add(ids.get(i))) {
        continue; // the same message twice in one batch: the first copy stands for both
      }
      Object element = batch == null ? Boolean.TRUE : batch.get(i);
      // a claim that fails (another copy in flight, the store down) fails the whole call: the
      // claims made so far are released and the error handler redelivers every record
      consumers
          .computeIfAbsent(listener.group(), g -> engine.consumer(g, true))
          .process(
              ids.get(i),
              Fingerprint.NONE,
              ctx -> {
                fresh.add(element);
                return null;
              },
              held::add);
    }
    return fresh;
  }

  /**
   * Completes the held claims when the method returned (after the transaction, when the store does
   * not write in it), or releases them when it threw.
   */
  private void settle(List<PendingOutcome> held, boolean succeeded) {
    Consumer<PendingOutcome> deferral = succeeded ? engine.deferral() : null;
    for (PendingOutcome outcome : held) {
      if (!succeeded) {
        outcome.release();
      } else if (deferral != null) {
        deferral.accept(outcome);
      } else {
        outcome.complete();
      }
    }
  }

  private Listener listener(Method method) {
    Method target = AopUtils.getMostSpecificMethod(method, method.getDeclaringClass());
    String group = ListenerMethods.group(target, engine);
    return new Listener(
        group,
        new KafkaListenerMethod(
            target, ListenerMethods.annotation(target).key(), engine.beanFactory()));
  }

  /**
   * The id of one record.
   *
   * @throws InvalidKeyException when it has none
   * @throws EvaluationException when the key expression fails
   */
  private static String messageId(
      Listener listener, ConsumerRecord<?, ?> record, Object payload, Object[] args) {
    try {
      String id = listener.method().idOf(record, payload, args);
      if (id != null && !id.isEmpty()) {
        return id;
      }
      throw InvalidKeyException.missing(
          "record "
              + coordinates(record)
              + " for consumer group "
              + listener.group()
              + " has no "
              + listener.method().describe());
    } catch (InvalidKeyException | EvaluationException e) {
      log.warn(
          "refused record {} for consumer group {}: no message id from its {}; the container's"
              + " error handler decides what becomes of it",
          coordinates(record),
          listener.group(),
          listener.method().describe(),
          e);
      throw e;
    }
  }

  private static String coordinates(ConsumerRecord<?, ?> record) {
    return record.topic() + "-" + record.partition() + "@" + record.offset();
  }
}
