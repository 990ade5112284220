package dev.idem.spring.kafka.internal;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

/** The root object of an {@code @IdempotentListener} key expression on a Kafka listener. */
public final class KafkaRecordRoot {

  private final ConsumerRecord<?, ?> record;
  private final @Nullable Object payload;

  KafkaRecordRoot(ConsumerRecord<?, ?> record, @Nullable Object payload) {
    this.record = record;
    this.payload = payload;
  }

  /** The record as received. */
  public ConsumerRecord<?, ?> getRecord() {
    return record;
  }

  /** The record's key, as deserialised; often an entity's id rather than a message's. */
  public Object getKey() {
    return record.key();
  }

  public String getTopic() {
    return record.topic();
  }

  public int getPartition() {
    return record.partition();
  }

  public long getOffset() {
    return record.offset();
  }

  /** The record's headers, each its last value read as UTF-8; a null value stays null. */
  public Map<String, String> getHeaders() {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : record.headers()) {
      byte[] value = header.value();
      headers.put(header.key(), value == null ? null : new String(value, StandardCharsets.UTF_8));
    }
    return headers;
  }

  /** The converted payload the listener gets for this record, or null if it takes none. */
  public @Nullable Object getPayload() {
    return payload;
  }
}
