package dev.idem.spring.kafka.internal;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * A record and batch interceptor of every listener container factory bean: makes the records being
 * handed to a listener visible to the {@code @IdempotentListener} advice further down on the same
 * thread. A method advice only sees the method's arguments, which need not include the records.
 */
public final class RecordBinder
    implements RecordInterceptor<Object, Object>, BatchInterceptor<Object, Object> {

  /**
   * The records on their way to one listener call, in the order the listener sees them.
   *
   * @param batch whether the listener takes them as one batch
   */
  public record KafkaDelivery(List<ConsumerRecord<?, ?>> records, boolean batch) {}

  private final ThreadLocal<KafkaDelivery> current = new ThreadLocal<>();

  @Override
  public ConsumerRecord<Object, Object> intercept(
      ConsumerRecord<Object, Object> record, Consumer<Object, Object> consumer) {
    current.set(new KafkaDelivery(List.of(record), false));
    return record;
  }

  @Override
  public void afterRecord(
      ConsumerRecord<Object, Object> record, Consumer<Object, Object> consumer) {
    current.remove();
  }

  @Override
  public ConsumerRecords<Object, Object> intercept(
      ConsumerRecords<Object, Object> records, Consumer<Object, Object> consumer) {
    List<ConsumerRecord<?, ?>> list = new ArrayList<>(records.count());
    records.forEach(list::add);
    current.set(new KafkaDelivery(List.copyOf(list), true));
    return records;
  }

  @Override
  public void success(ConsumerRecords<Object, Object> records, Consumer<Object, Object> consumer) {
    current.remove();
  }

  @Override
  public void failure(
      ConsumerRecords<Object, Object> records,
      Exception exception,
      Consumer<Object, Object> consumer) {
    current.remove();
  }

  /** The delivery being handled on this thread, or null outside a listener container. */
  public KafkaDelivery current() {
    return current.get();
  }
}
