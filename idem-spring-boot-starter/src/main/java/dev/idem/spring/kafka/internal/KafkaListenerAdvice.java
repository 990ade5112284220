package dev.idem.spring.kafka.internal;

import dev.idem.core.Deferral;
import dev.idem.core.ExecutionContext;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.PendingOutcome;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.spring.kafka.internal.RecordBinder.KafkaDelivery;
import dev.idem.spring.messaging.internal.HeldClaims;
import dev.idem.spring.messaging.internal.ListenerBeans;
import dev.idem.spring.messaging.internal.ListenerMethods;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.expression.EvaluationException;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.transaction.support.TransactionSynchronizationManager;

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
  private final ListenerBeans engine;
  private final Map<Method, Listener> listeners = new ConcurrentHashMap<>();
  private final Map<String, IdempotentConsumer> consumers = new ConcurrentHashMap<>();
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  KafkaListenerAdvice(RecordBinder binder, ListenerBeans engine) {
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
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    KafkaDelivery delivery = binder.current();
    if (delivery == null) {
      throw ListenerMethods.outsideContainer(
          invocation.getMethod(), "the Kafka records being delivered");
    }
    Listener listener = listeners.computeIfAbsent(invocation.getMethod(), this::listener);
    @Nullable Object[] args = invocation.getArguments();
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
        refused =
            batch == null
                ? e
                : new BatchListenerFailedException(String.valueOf(e.getMessage()), e, i);
      }
    }
    if (refused != null && ids.isEmpty()) {
      throw refused;
    }
    // a batch with a record without an id: the records before it are handled, then the error
    // handler is told which record failed, so that it commits those and deals with that one
    List<?> handled = batch == null ? null : batch.subList(0, ids.size());
    AtomicInteger nackedAt = new AtomicInteger(-1);
    Object result =
        engine.<@Nullable Object>inTransaction(
            () -> run(invocation, listener, ids, handled, records, nackedAt));
    // A nack gives back the records from its place on, the one without an id among them: it comes
    // again and is refused then. Thrown now, the error handler would commit the records before
    // it, those given back included, unhandled.
    if (refused != null && nackedAt.get() < 0) {
      throw refused;
    }
    return result;
  }

  /** A claim held until the call ends, and the place of its record in the container's batch. */
  private record Held(int position, PendingOutcome outcome) {}

  /**
   * What the claims of a call took: the fresh elements, their positions, and the contexts of their
   * claims, whose steps a record listener's body makes.
   */
  private record Claims(List<Object> fresh, int[] positions, List<ExecutionContext> contexts) {}

  private @Nullable Object run(
      MethodInvocation invocation,
      Listener listener,
      List<String> ids,
      @Nullable List<?> batch,
      List<ConsumerRecord<?, ?>> records,
      AtomicInteger nackedAt)
      throws Exception {
    int total = records.size();
    List<Held> held = new ArrayList<>();
    boolean succeeded = false;
    int releasedFrom = -1;
    try {
      Claims claims = claim(listener, ids, batch, held);
      @Nullable Object[] args = invocation.getArguments();
      HeldAcknowledgment ack = hold(listener, args, claims.positions(), ids.size(), total);
      Object result = null;
      if (claims.fresh().isEmpty()) {
        log.debug("{} message(s) were processed before by group {}", ids.size(), listener.group());
        if (ack != null) {
          ack.acknowledge();
        }
      } else {
        if (batch != null) {
          args[listener.method().payloadIndex()] = claims.fresh();
        }
        try {
          // a record's body runs within its claim's work, so that it can make steps of it; a
          // batch's bodies belong to many claims, and make none
          result =
              batch == null
                  ? ExecutionContext.callWithin(
                      claims.contexts().get(0), () -> ListenerMethods.proceed(invocation))
                  : ListenerMethods.proceed(invocation);
        } catch (BatchListenerFailedException e) {
          if (batch == null) {
            throw e;
          }
          int position = positionOf(e, claims.positions(), records);
          if (position < 0) {
            // not the error handler's cue to commit the records before it: they come again too
            throw new KafkaException(
                "the batch listener failed at a record and its writes roll back: the whole batch"
                    + " comes again",
                e.getCause() != null ? e.getCause() : new IllegalStateException(e.getMessage()));
          }
          // the records before the failed one are done, the rest come again
          succeeded = true;
          releasedFrom = position;
          throw new BatchListenerFailedException(e.getMessage(), e.getCause(), position);
        } catch (Exception e) {
          int done = ack == null ? -1 : ack.acknowledgedTo();
          if (batch != null && !TransactionSynchronizationManager.isActualTransactionActive()) {
            if (done >= 0) {
              // the records the listener acknowledged are done: kept, the rest come again
              succeeded = true;
              releasedFrom = done + 1;
            } else {
              unknownProgress(listener, e);
            }
          }
          throw e;
        }
      }
      succeeded = true;
      releasedFrom = ack == null ? -1 : ack.nackedAt();
      nackedAt.set(releasedFrom);
      return result;
    } finally {
      settle(held, succeeded, releasedFrom);
    }
  }

  // A batch listener outside a transaction threw without saying how far it got: every record
  // comes again, and those whose effect it applied run again.
  private void unknownProgress(Listener listener, Exception e) {
    if (warned.add(listener.group())) {
      log.warn(
          "batch listener of group {} threw {} without saying which records it had applied: its"
              + " whole batch comes again, and records whose effect took place run again. Throw"
              + " BatchListenerFailedException with the failed record's index, or call"
              + " Acknowledgment.acknowledge(index) as each record is done, or run it in a"
              + " transaction with the JDBC store (logged once per group)",
          listener.group(),
          e.toString());
    }
  }

  /**
   * The failed record's place in the container's batch, or -1 when the whole batch must come again:
   * the listener's writes roll back with a transaction around it, the records before included. The
   * listener names the record by its index in its own list or by the record itself; a record it was
   * not handed is no place in its batch.
   */
  private static int positionOf(
      BatchListenerFailedException e, int[] positions, List<ConsumerRecord<?, ?>> records) {
    if (TransactionSynchronizationManager.isActualTransactionActive()) {
      return -1;
    }
    int index = e.getIndex();
    if (index >= 0) {
      return index < positions.length ? positions[index] : -1;
    }
    ConsumerRecord<?, ?> failed = e.getRecord();
    if (failed == null) {
      return -1;
    }
    for (int position : positions) {
      ConsumerRecord<?, ?> record = records.get(position);
      if (record.partition() == failed.partition()
          && record.offset() == failed.offset()
          && record.topic().equals(failed.topic())) {
        return position;
      }
    }
    return -1;
  }

  /**
   * Hands the listener an acknowledgment that speaks in its own list's positions, if it takes one.
   */
  private static @Nullable HeldAcknowledgment hold(
      Listener listener, @Nullable Object[] args, int[] positions, int handled, int total) {
    int index = listener.method().ackIndex();
    if (index < 0 || !(args[index] instanceof Acknowledgment container)) {
      return null;
    }
    HeldAcknowledgment ack = new HeldAcknowledgment(container, positions, handled, total);
    args[index] = ack;
    return ack;
  }

  /**
   * Claims every distinct id, their claims sent together; returns the batch elements whose claim
   * succeeded (for a record listener, a one-element list when it did), and adds each claim's held
   * outcome to {@code held}.
   */
  private Claims claim(
      Listener listener, List<String> ids, @Nullable List<?> batch, List<Held> held) {
    List<Object> fresh = new ArrayList<>();
    List<Integer> positions = new ArrayList<>();
    List<ExecutionContext> contexts = new ArrayList<>();
    int[] current = {-1};
    // a claim that fails (another copy in flight, the store down) fails the whole call: the
    // claims made so far are released and the error handler redelivers every record; the same
    // message twice in one batch is one message, its first copy standing for both
    consumers
        .computeIfAbsent(listener.group(), g -> engine.consumer(g, true))
        .processAll(
            ids,
            (position, ctx) -> {
              current[0] = position;
              fresh.add(batch == null ? Boolean.TRUE : batch.get(position));
              positions.add(position);
              contexts.add(ctx);
            },
            outcome -> held.add(new Held(current[0], outcome)));
    return new Claims(
        fresh, positions.stream().mapToInt(Integer::intValue).toArray(), List.copyOf(contexts));
  }

  /**
   * Completes the held claims when the method returned (after the transaction, when the store does
   * not write in it), or releases them when it threw; those from {@code releasedFrom} on (a nack, a
   * failed record of a batch) are released either way.
   */
  private void settle(List<Held> held, boolean succeeded, int releasedFrom) {
    List<PendingOutcome> done = new ArrayList<>();
    List<PendingOutcome> undone = new ArrayList<>();
    for (Held h : held) {
      boolean released = !succeeded || (releasedFrom >= 0 && h.position() >= releasedFrom);
      (released ? undone : done).add(h.outcome());
    }
    HeldClaims.settle(done, undone, succeeded ? engine.deferral() : Deferral.NONE);
  }

  private Listener listener(Method method) {
    Method target = AopUtils.getMostSpecificMethod(method, method.getDeclaringClass());
    String group = ListenerMethods.group(target, engine);
    return new Listener(
        group,
        new KafkaListenerMethod(
            target,
            Objects.requireNonNull(ListenerMethods.annotation(target)).key(),
            engine.beanFactory()));
  }

  /**
   * The id of one record.
   *
   * @throws InvalidKeyException when it has none
   * @throws EvaluationException when the key expression fails
   */
  private static String messageId(
      Listener listener,
      ConsumerRecord<?, ?> record,
      @Nullable Object payload,
      @Nullable Object[] args) {
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
