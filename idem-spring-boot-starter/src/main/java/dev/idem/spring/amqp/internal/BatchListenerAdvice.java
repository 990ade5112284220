package dev.idem.spring.amqp.internal;

import dev.idem.core.Deferral;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.PendingOutcome;
import dev.idem.core.consumer.IdempotentConsumer.BatchHandler;
import dev.idem.core.consumer.IdempotentConsumer.Handled;
import dev.idem.spring.amqp.internal.DeliveryBinder.RabbitDelivery;
import dev.idem.spring.amqp.internal.IdempotentListenerInterceptor.Listener;
import dev.idem.spring.messaging.internal.HeldClaims;
import dev.idem.spring.messaging.internal.ListenerBeans;
import dev.idem.spring.messaging.internal.ListenerMethods;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.listener.support.ContainerUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The {@code @IdempotentListener} advice for a batch listener (a container factory with {@code
 * batchListener} and consumer batches: the method takes a list of the messages, of Spring messages
 * or of payloads, in the order of delivery). The ids of the batch are claimed together (one round
 * trip on Redis, one insert and one read on a database), the method runs once with the elements not
 * processed before (and not at all when none is left), and the claims are completed together once
 * it returned, after the transaction when the store does not write in it. When it throws, every
 * claim is released (or rolled back with the transaction) and the whole batch comes again.
 *
 * <p>A message without an id cannot be refused alone while the container acknowledges the batch as
 * one: the others are handled first, then the whole batch is rejected without requeue, so the
 * refused message goes to the dead letters with copies of the others, which a re-drive answers as
 * duplicates. With ackMode MANUAL, Idem rejects it alone and acknowledges the rest.
 *
 * <p>With ackMode MANUAL and a store that does not write in the listener's transaction, a message
 * whose claim fails is settled alone too: a copy in flight elsewhere (or a store failing for its
 * key) is requeued by itself and the method runs with the others; one whose stored answer is a
 * failure is rejected without requeue. Otherwise (AUTO, which settles the batch as one, or a store
 * that joins the transaction, where a failed claim would commit with the others) a claim that fails
 * requeues the whole batch.
 */
final class BatchListenerAdvice {

  private static final Logger log = LoggerFactory.getLogger(BatchListenerAdvice.class);

  private final ListenerBeans engine;
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  BatchListenerAdvice(ListenerBeans engine) {
    this.engine = engine;
  }

  /**
   * The ids of a batch's messages that have one, their places in the batch, and the others; with
   * ackMode MANUAL, what the claims gave back: messages to deliver again (a copy in flight
   * elsewhere, the store failing for that key) and to reject (a failure stored as their answer).
   */
  private record Keyed(
      List<Message> messages,
      List<String> ids,
      List<Integer> positions,
      List<Message> refused,
      List<Message> again,
      List<Message> answered) {}

  @Nullable Object invoke(MethodInvocation invocation, Listener listener, RabbitDelivery delivery)
      throws Throwable {
    @Nullable Object[] args = invocation.getArguments();
    List<Message> messages = delivery.messages();
    Keyed keyed;
    Object result = null;
    try {
      int index = batchIndex(invocation, messages.size());
      // batchIndex found a list there
      List<?> batch = (List<?>) Objects.requireNonNull(args[index]);
      keyed = keyed(listener, delivery, batch, args);
      if (!keyed.ids().isEmpty()) {
        result =
            engine.<@Nullable Object>inTransaction(
                () -> run(invocation, listener, index, batch, keyed));
      }
    } catch (Exception | Error e) {
      if (listener.manualAck() && !ContainerUtils.isRejectManual(e)) {
        ManualAcks.requeue(delivery.channel(), messages);
      }
      throw e;
    }
    if (listener.manualAck()) {
      List<Message> handled = new ArrayList<>();
      for (int position : keyed.positions()) {
        handled.add(messages.get(position));
      }
      List<Message> rejected = new ArrayList<>(keyed.refused());
      rejected.addAll(keyed.answered());
      ManualAcks.settleAfterCommit(delivery.channel(), rejected, keyed.again(), handled);
    } else if (!keyed.refused().isEmpty()) {
      throw new AmqpRejectAndDontRequeueException(
          keyed.refused().size()
              + " message(s) of the batch have no id: the others were handled, and the whole"
              + " batch is rejected so that those reach the dead letters",
          true,
          InvalidKeyException.missing(
              "a message for consumer group " + listener.group() + " has no id"));
    }
    return result;
  }

  private static Keyed keyed(
      Listener listener, RabbitDelivery delivery, List<?> batch, @Nullable Object[] args) {
    List<Message> messages = delivery.messages();
    List<String> ids = new ArrayList<>();
    List<Integer> positions = new ArrayList<>();
    List<Message> refused = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      Message message = messages.get(i);
      Object element = batch.get(i);
      int fragment = delivery.fragments().get(i);
      try {
        ids.add(
            IdempotentListenerInterceptor.messageId(
                listener, message, () -> listener.ids().idOf(message, fragment, element, args)));
        positions.add(i);
      } catch (AmqpRejectAndDontRequeueException e) {
        refused.add(message); // logged by messageId
      }
    }
    return new Keyed(messages, ids, positions, refused, new ArrayList<>(), new ArrayList<>());
  }

  private @Nullable Object run(
      MethodInvocation invocation, Listener listener, int index, List<?> batch, Keyed keyed)
      throws Exception {
    List<PendingOutcome> held = new ArrayList<>();
    List<Object> fresh = new ArrayList<>();
    boolean succeeded = false;
    try {
      BatchHandler<RuntimeException> collect =
          (position, ctx) -> fresh.add(batch.get(keyed.positions().get(position)));
      if (listener.manualAck() && !engine.idempotency().store().joinsCurrentTransaction()) {
        // each message is settled alone: one whose claim fails goes back by itself
        giveBack(listener, keyed, listener.consumer().processEach(keyed.ids(), collect, held::add));
      } else {
        // a claim that fails (a copy in flight elsewhere, the store down) fails the whole batch:
        // the claims made so far are released and the container requeues every message (in a
        // transaction the store writes in, a failed claim would commit with the others)
        listener.consumer().processAll(keyed.ids(), collect, held::add);
      }
      Object result = null;
      if (fresh.isEmpty()) {
        log.debug(
            "{} message(s) were processed before by group {}",
            keyed.positions().size(),
            listener.group());
      } else {
        invocation.getArguments()[index] = fresh;
        try {
          result = ListenerMethods.proceed(invocation);
        } catch (Exception e) {
          if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            unknownProgress(listener, e);
          }
          throw e;
        }
      }
      succeeded = true;
      return result;
    } finally {
      if (succeeded) {
        HeldClaims.settle(held, List.of(), engine.deferral());
      } else {
        HeldClaims.settle(List.of(), held, Deferral.NONE);
      }
    }
  }

  // Takes the messages whose claim failed out of the ones handled: a message that is to come again
  // (its key given back) or whose answer is a stored failure (every delivery would answer the
  // same) is settled alone, the rest run and are acknowledged.
  private static void giveBack(Listener listener, Keyed keyed, List<Handled> handled) {
    List<Integer> failed = new ArrayList<>();
    for (int i = 0; i < handled.size(); i++) {
      if (!(handled.get(i) instanceof Handled.Failed f)) {
        continue;
      }
      int position = keyed.positions().get(i);
      failed.add(position);
      if (f.requeue()) {
        log.debug(
            "message {} of a batch of group {} comes again: {}",
            keyed.ids().get(i),
            listener.group(),
            f.failure().toString());
        keyed.again().add(keyed.messages().get(position));
      } else {
        log.warn(
            "message {} of a batch of group {} has a failure for its answer; rejected without"
                + " requeue: {}",
            keyed.ids().get(i),
            listener.group(),
            f.failure().toString());
        keyed.answered().add(keyed.messages().get(position));
      }
    }
    keyed.positions().removeAll(failed);
  }

  // A batch listener outside a transaction threw: every message comes again, and those whose
  // effect it applied run again.
  private void unknownProgress(Listener listener, Exception e) {
    if (warned.add(listener.group())) {
      log.warn(
          "batch listener of group {} threw {}: its whole batch comes again, and messages whose"
              + " effect took place run again. Run it in a transaction with the JDBC store, or take"
              + " the messages one by one (logged once per group)",
          listener.group(),
          e.toString());
    }
  }

  /**
   * The place of the listener's list among the arguments: the one list as long as the batch.
   *
   * @throws IllegalStateException when the method takes none
   */
  private static int batchIndex(MethodInvocation invocation, int size) {
    @Nullable Object[] args = invocation.getArguments();
    for (int i = 0; i < args.length; i++) {
      if (args[i] instanceof List<?> list && list.size() == size) {
        return i;
      }
    }
    throw new IllegalStateException(
        "@IdempotentListener "
            + invocation.getMethod()
            + " gets a batch of "
            + size
            + " messages from its container but takes no list of them; take the batch as a List"
            + " of messages or payloads");
  }
}
