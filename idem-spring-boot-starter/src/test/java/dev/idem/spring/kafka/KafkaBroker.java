package dev.idem.spring.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * One Kafka broker (KRaft, in this JVM) for every Kafka test of the run, started at first use, and
 * a producer of string records on it. Tests make their own topics, so they share nothing else.
 */
final class KafkaBroker {

  private static EmbeddedKafkaKraftBroker broker;
  private static KafkaProducer<String, String> producer;

  private KafkaBroker() {}

  /** The broker's {@code bootstrap.servers}, starting it first if need be. */
  static synchronized String servers() {
    if (broker == null) {
      quiet("org.apache.kafka");
      quiet("kafka");
      quiet("state.change.logger");
      EmbeddedKafkaKraftBroker started = new EmbeddedKafkaKraftBroker(1, 1);
      // a consumer that joins an empty group need not wait for others to join too
      started.brokerProperty("group.initial.rebalance.delay.ms", "0");
      // one broker: transactions' own log cannot have the three replicas it asks for by default
      started.brokerProperty("transaction.state.log.replication.factor", "1");
      started.brokerProperty("transaction.state.log.min.isr", "1");
      started.afterPropertiesSet();
      Runtime.getRuntime().addShutdownHook(new Thread(started::destroy));
      broker = started;
    }
    return broker.getBrokersAsString();
  }

  /** Until a test application sets levels from its properties, the broker logs only warnings. */
  private static void quiet(String logger) {
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(logger))
        .setLevel(ch.qos.logback.classic.Level.WARN);
  }

  /** A new topic with {@code partitions} partitions, named after {@code prefix}. */
  static String topic(String prefix, int partitions) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    servers();
    broker.addTopics(new NewTopic(name, partitions, (short) 1));
    return name;
  }

  /**
   * Sends a record and waits for the broker's acknowledgement.
   *
   * @param messageId the {@code message-id} header, or null for none
   */
  static void send(String topic, String key, String value, String messageId) throws Exception {
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, value);
    if (messageId != null) {
      record
          .headers()
          .add("message-id", messageId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    producer().send(record).get();
  }

  /** The values of every committed record of {@code topic}, as a read-committed consumer sees. */
  static List<String> committedValues(String topic, int expected) {
    List<String> values = new java.util.ArrayList<>();
    try (var reader =
        new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(
            Map.of(
                "bootstrap.servers",
                servers(),
                "group.id",
                "reader-" + UUID.randomUUID(),
                "auto.offset.reset",
                "earliest",
                "isolation.level",
                "read_committed"),
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.StringDeserializer())) {
      reader.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      // read until the expected count is there, then one more poll for any record beyond it
      boolean extra = false;
      while (System.nanoTime() < deadline && !extra) {
        boolean enough = values.size() >= expected;
        reader.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
        extra = enough;
      }
    }
    return values;
  }

  /** The offset {@code group} committed on partition 0 of {@code topic}, or -1 for none. */
  static long committedOffset(String group, String topic) {
    try (var reader =
        new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(
            Map.of("bootstrap.servers", servers(), "group.id", group),
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.StringDeserializer())) {
      var partition = new org.apache.kafka.common.TopicPartition(topic, 0);
      var committed = reader.committed(java.util.Set.of(partition)).get(partition);
      return committed == null ? -1 : committed.offset();
    }
  }

  /** Sends several records with their bodies as message ids, in one go. */
  static void sendAll(String topic, List<String> bodies) throws Exception {
    for (String body : bodies) {
      send(topic, null, body, body);
    }
  }

  private static synchronized KafkaProducer<String, String> producer() {
    if (producer == null) {
      producer =
          new KafkaProducer<>(
              Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  servers(),
                  ProducerConfig.ACKS_CONFIG,
                  "all",
                  ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                  (int) Duration.ofSeconds(30).toMillis(),
                  ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                  (int) Duration.ofSeconds(20).toMillis()),
              new StringSerializer(),
              new StringSerializer());
    }
    return producer;
  }
}
