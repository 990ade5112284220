package dev.idem.spring.amqp.internal;

import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.amqp.core.Message;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The acknowledgements Idem sends for a listener whose container acknowledges nothing itself
 * (ackMode MANUAL), one per delivery tag.
 */
final class ManualAcks {

  private ManualAcks() {}

  /**
   * Acknowledges {@code messages} when the transaction around this call commits (and requeues them
   * when it rolls back), or now if there is none.
   */
  static void ackAfterCommit(Channel channel, List<Message> messages) throws IOException {
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      ack(channel, messages);
      return;
    }
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCompletion(int status) {
            try {
              if (status == STATUS_COMMITTED) {
                ack(channel, messages);
              } else {
                requeue(channel, messages);
              }
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        });
  }

  /** Rejects {@code messages} and asks the broker to deliver them again. */
  static void requeue(Channel channel, List<Message> messages) throws IOException {
    for (long tag : tags(messages)) {
      channel.basicNack(tag, false, true);
    }
  }

  /**
   * Rejects {@code refused} without requeue (to the dead letters, if the queue has them), requeues
   * {@code again} now, and acknowledges {@code handled} as {@link #ackAfterCommit} does; each tag
   * once, and a tag rejected or requeued is not acknowledged: a handled message that shares its
   * delivery with one of the others (both split from a producer's batch) goes with it, and a
   * re-drive or redelivery answers it as a duplicate.
   */
  static void settleAfterCommit(
      Channel channel, List<Message> refused, List<Message> again, List<Message> handled)
      throws IOException {
    Set<Long> settled = tags(refused);
    for (long tag : settled) {
      channel.basicReject(tag, false);
    }
    for (long tag : tags(again)) {
      if (settled.add(tag)) {
        channel.basicNack(tag, false, true);
      }
    }
    List<Message> acked = new ArrayList<>();
    for (Message message : handled) {
      if (!settled.contains(tag(message))) {
        acked.add(message);
      }
    }
    ackAfterCommit(channel, acked);
  }

  private static void ack(Channel channel, List<Message> messages) throws IOException {
    for (long tag : tags(messages)) {
      channel.basicAck(tag, false);
    }
  }

  // Each delivery tag once: the fragments of a producer's batch share their delivery's tag, and a
  // tag settled twice closes the channel.
  private static Set<Long> tags(List<Message> messages) {
    Set<Long> tags = new LinkedHashSet<>();
    for (Message message : messages) {
      tags.add(tag(message));
    }
    return tags;
  }

  static long tag(Message message) {
    return message.getMessageProperties().getDeliveryTag();
  }
}
