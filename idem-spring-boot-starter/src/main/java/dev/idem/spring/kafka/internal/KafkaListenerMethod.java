package dev.idem.spring.kafka.internal;

import dev.idem.spring.messaging.internal.MessageKey;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;

/**
 * What the advice reads from one listener method's signature: where the payload, the batch and the
 * acknowledgment are among its arguments, and how a record's message id is found (the {@value
 * #ID_HEADER} header, or a SpEL expression).
 */
final class KafkaListenerMethod {

  /** The header that carries a record's message id unless the annotation's key says otherwise. */
  static final String ID_HEADER = "message-id";

  private final Method method;
  private final MessageKey key;
  private final int payloadIndex;
  private final int ackIndex;

  /**
   * @param expression the key expression; empty for the {@value #ID_HEADER} header
   * @throws IllegalStateException when the method takes {@code ConsumerRecords}, which the advice
   *     cannot filter, or a list of headers, which it would not filter
   * @throws org.springframework.expression.ParseException when the expression does not parse
   */
  KafkaListenerMethod(Method method, String expression, BeanFactory beanFactory) {
    this.method = method;
    this.key = new MessageKey(method, expression, beanFactory);
    int payload = -1;
    int ack = -1;
    Class<?>[] types = method.getParameterTypes();
    for (int i = 0; i < types.length; i++) {
      if (ConsumerRecords.class.isAssignableFrom(types[i])) {
        throw new IllegalStateException(
            "@IdempotentListener "
                + method
                + " takes ConsumerRecords; take a List of records or payloads instead, which the"
                + " advice can pass on without the records processed before");
      }
      MergedAnnotations annotations = MergedAnnotations.from(method.getParameters()[i]);
      if (java.util.Collection.class.isAssignableFrom(types[i])
          && annotations.isPresent(Header.class)) {
        throw new IllegalStateException(
            "@IdempotentListener "
                + method
                + " takes a list of headers; the advice passes on only the records not processed"
                + " before, and that list would no longer match them: read the headers from a"
                + " List of ConsumerRecord or Message instead");
      }
      if (Acknowledgment.class.isAssignableFrom(types[i])) {
        ack = i;
      } else if (payload < 0
          && !Consumer.class.isAssignableFrom(types[i])
          && !annotations.isPresent(Header.class)
          && !annotations.isPresent(Headers.class)) {
        payload = i;
      }
    }
    this.payloadIndex = payload;
    this.ackIndex = ack;
  }

  /** A description for logs: the expression, or the header. */
  String describe() {
    return key.describe("header '" + ID_HEADER + "'");
  }

  /** The argument's index that receives the payload (or the batch), or -1. */
  int payloadIndex() {
    return payloadIndex;
  }

  /** The argument's index that receives the {@link Acknowledgment}, or -1. */
  int ackIndex() {
    return ackIndex;
  }

  /**
   * The batch argument of a batch listener's call.
   *
   * @throws IllegalStateException when there is none, or it does not hold one element per record
   */
  List<?> batch(@Nullable Object[] args, int records) {
    if (payloadIndex < 0 || !(args[payloadIndex] instanceof List<?> batch)) {
      throw new IllegalStateException(
          "@IdempotentListener " + method + " is called with a batch but takes no List of it");
    }
    if (batch.size() != records) {
      throw new IllegalStateException(
          "@IdempotentListener "
              + method
              + " got a List of "
              + batch.size()
              + " elements for "
              + records
              + " records");
    }
    return batch;
  }

  /** The payload a record listener's call carries, or null. */
  @Nullable Object payload(@Nullable Object[] args) {
    return payloadIndex < 0 ? null : payloadOf(args[payloadIndex]);
  }

  /** The payload of one element of a batch: a record's value, a message's payload, or itself. */
  static @Nullable Object payloadOf(@Nullable Object element) {
    if (element instanceof ConsumerRecord<?, ?> record) {
      return record.value();
    }
    return element instanceof Message<?> message ? message.getPayload() : element;
  }

  /**
   * The message id of {@code record}, or null when it has none.
   *
   * @param payload what the listener gets for it, converted
   * @throws org.springframework.expression.EvaluationException when the expression fails
   */
  @Nullable String idOf(
      ConsumerRecord<?, ?> record, @Nullable Object payload, @Nullable Object[] args) {
    if (key.isDefault()) {
      org.apache.kafka.common.header.Header header = record.headers().lastHeader(ID_HEADER);
      byte[] value = header == null ? null : header.value();
      return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }
    return key.evaluate(new KafkaRecordRoot(record, payload), args);
  }
}
