package dev.idem.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.messaging.EffectsTable;
import dev.idem.spring.messaging.OutcomeLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code @IdempotentListener} on {@code @KafkaListener} methods, on a real Kafka broker (KRaft, in
 * this JVM) with the JDBC store on PostgreSQL: each test starts the consumer application on fresh
 * topics, a fresh consumer group and a fresh business table, sends, waits until the engine reports
 * every record, and counts rows.
 */
class KafkaListenerIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private EffectsTable effects;
  private final Map<String, Object> properties = new HashMap<>();
  private final List<ConfigurableApplicationContext> consumers = new ArrayList<>();

  @BeforeEach
  void topics() {
    effects = new EffectsTable();
    properties.putAll(KafkaTestApplication.freshTopics("it", effects));
  }

  @AfterEach
  void cleanUp() {
    try {
      consumers.forEach(ConfigurableApplicationContext::close);
    } finally {
      effects.close();
    }
  }

  private ConfigurableApplicationContext startConsumer() {
    ConfigurableApplicationContext consumer = KafkaTestApplication.start(properties);
    consumers.add(consumer);
    return consumer;
  }

  private String topic(String name) {
    return (String) properties.get(name);
  }

  @Test
  void aRecordSentTwiceWithOneMessageIdHasOneEffect() throws Exception {
    OutcomeLog outcomes = startConsumer().getBean(OutcomeLog.class);
    String id = UUID.randomUUID().toString();

    KafkaBroker.send(topic("test.topic"), null, id, id);
    KafkaBroker.send(topic("test.topic"), null, id, id);

    await().atMost(PATIENCE).until(() -> outcomes.count(id, ExecutionOutcome.REPLAYED) == 1);
    assertThat(outcomes.count(id, ExecutionOutcome.EXECUTED)).isEqualTo(1);
    assertThat(effects.rows(id)).isEqualTo(1);
  }

  @Test
  void theEffectAndTheDedupRecordCommitInOneTransaction() throws Exception {
    ConfigurableApplicationContext consumer = startConsumer();
    OutcomeLog outcomes = consumer.getBean(OutcomeLog.class);
    String body = "fail-once-" + UUID.randomUUID();

    KafkaBroker.send(topic("test.topic"), null, body, body);

    // the first attempt wrote its row and failed: the row rolled back with the claim, and the
    // error handler's retry applied the record once
    // The engine reports EXECUTED for a run that failed, too: two runs, the first one failed.
    await().atMost(PATIENCE).until(() -> outcomes.count(body, ExecutionOutcome.EXECUTED) == 2);
    await().atMost(PATIENCE).until(() -> effects.rows(body) == 1);
    assertThat(consumer.getBean(KafkaTestListeners.class).calls()).isEqualTo(2);
    assertThat(consumer.getBean(KafkaTestListeners.class).allInTransaction()).isTrue();
  }

  @Test
  void aRecordsStepRunsOnceAcrossTheAttemptThatFailedAndItsRedelivery() throws Exception {
    ConfigurableApplicationContext consumer = startConsumer();
    String body = "fail-once-step-" + UUID.randomUUID();

    KafkaBroker.send(topic("test.topic"), null, body, body);

    await().atMost(PATIENCE).until(() -> effects.rows(body) == 1);
    assertThat(consumer.getBean(KafkaTestListeners.class).calls()).isEqualTo(2);
    assertThat(consumer.getBean(Notifier.class).sent(body))
        .as("the notice is a step: the redelivery got its result instead of sending it again")
        .isEqualTo(1);
  }

  @Test
  void aKeyExpressionReadsTheRecordKey() throws Exception {
    OutcomeLog outcomes = startConsumer().getBean(OutcomeLog.class);
    String key = "order-" + UUID.randomUUID();

    // two publishes of one order, each with its own message-id header: the key decides
    KafkaBroker.send(topic("test.keyed-topic"), key, "first " + key, "m1-" + key);
    KafkaBroker.send(topic("test.keyed-topic"), key, "second " + key, "m2-" + key);

    await().atMost(PATIENCE).until(() -> outcomes.count(key, ExecutionOutcome.REPLAYED) == 1);
    assertThat(effects.rows("first " + key)).isEqualTo(1);
    assertThat(effects.rows("second " + key)).isZero();
  }

  @Test
  void aDuplicateIsAcknowledgedForAListenerThatAcknowledgesItself() throws Exception {
    ConfigurableApplicationContext consumer = startConsumer();
    OutcomeLog outcomes = consumer.getBean(OutcomeLog.class);
    String body = "manual-" + UUID.randomUUID();

    KafkaBroker.send(topic("test.manual-topic"), null, body, null);
    KafkaBroker.send(topic("test.manual-topic"), null, body, null);

    await().atMost(PATIENCE).until(() -> outcomes.count(body, ExecutionOutcome.REPLAYED) == 1);
    await().atMost(PATIENCE).until(() -> committedOffset(topic("test.manual-topic")) == 2);
    assertThat(effects.rows(body)).isEqualTo(1);
  }

  @Test
  void aBatchListenerGetsOnlyTheRecordsNotProcessedBefore() throws Exception {
    ConfigurableApplicationContext consumer = startConsumer();
    OutcomeLog outcomes = consumer.getBean(OutcomeLog.class);
    KafkaTestListeners listeners = consumer.getBean(KafkaTestListeners.class);
    String a = "a-" + UUID.randomUUID();
    String b = "b-" + UUID.randomUUID();
    String c = "c-" + UUID.randomUUID();

    KafkaBroker.sendAll(topic("test.batch-topic"), List.of(a, b));
    await().atMost(PATIENCE).until(() -> outcomes.count(b, ExecutionOutcome.EXECUTED) == 1);
    KafkaBroker.sendAll(topic("test.batch-topic"), List.of(a, c, b, c));
    await().atMost(PATIENCE).until(() -> effects.rows(c) == 1);

    assertThat(listeners.batches().stream().flatMap(List::stream)).containsExactly(a, b, c);
    assertThat(effects.rows(a)).isEqualTo(1);
    assertThat(effects.rows(b)).isEqualTo(1);
    assertThat(effects.rows(c)).isEqualTo(1);
    await().atMost(PATIENCE).until(() -> committedOffset(topic("test.batch-topic")) == 6);
  }

  @Test
  void aRecordTheListenerNacksIsAppliedWhenItComesAgain() throws Exception {
    OutcomeLog outcomes = startConsumer().getBean(OutcomeLog.class);
    String body = "nack-once-" + UUID.randomUUID();

    KafkaBroker.send(topic("test.manual-topic"), null, body, null);

    await().atMost(PATIENCE).until(() -> effects.rows(body) == 1);
    assertThat(outcomes.count(body, ExecutionOutcome.REPLAYED)).isZero();
  }

  @Test
  void aBatchListenerFailingAtARecordInItsTransactionGetsTheWholeBatchAgain() throws Exception {
    startConsumer();
    String suffix = UUID.randomUUID().toString();
    List<String> batch = List.of("a-" + suffix, "fail-at-once-" + suffix, "c-" + suffix);

    KafkaBroker.sendAll(topic("test.batch-topic"), batch);

    // the first call wrote a and failed at the second record; its transaction rolled a back, so
    // the error handler must not commit a as done: every record is applied, once
    for (String body : batch) {
      await().atMost(PATIENCE).until(() -> effects.rows(body) == 1);
    }
    await().atMost(PATIENCE).until(() -> committedOffset(topic("test.batch-topic")) == 3);
    assertThat(effects.rows()).isEqualTo(3);
  }

  @Test
  void aBatchListenerOutsideATransactionThatThrowsKeepsTheRecordsItAcknowledged() throws Exception {
    properties.put("test.redis-url", KafkaTestApplication.redisUrl());
    properties.put("idem.store", "redis");
    properties.put("test.batch-ack-topic", KafkaBroker.topic("it-batch-acks", 1));
    properties.put("test.batch-acks", "true");
    String suffix = UUID.randomUUID().toString();
    List<String> batch =
        List.of("a-" + suffix, "b-" + suffix, "throw-at-once-" + suffix, "d-" + suffix);
    // sent before the consumer starts, so that its first poll takes them as one batch
    KafkaBroker.sendAll(topic("test.batch-ack-topic"), batch);
    ConfigurableApplicationContext consumer = startConsumer();

    // the first call applied and acknowledged a and b, then threw: the error handler hands the
    // whole batch over again, and a and b, done with no transaction to undo them, must not run
    for (String body : batch) {
      await().atMost(PATIENCE).until(() -> effects.rows(body) >= 1);
    }
    await().atMost(PATIENCE).until(() -> committedOffset(topic("test.batch-ack-topic")) == 4);
    assertThat(consumer.getBean(KafkaTestListeners.class).batches().get(0)).hasSize(4);
    for (String body : batch) {
      assertThat(effects.rows(body)).as(body).isEqualTo(1);
    }
  }

  @Test
  void aBatchListenerOutsideATransactionFailingAtARecordItNamesKeepsTheRecordsBeforeIt()
      throws Exception {
    properties.put("test.redis-url", KafkaTestApplication.redisUrl());
    properties.put("idem.store", "redis");
    properties.put("test.batch-record-topic", KafkaBroker.topic("it-batch-records", 1));
    properties.put("test.batch-records", "true");
    String suffix = UUID.randomUUID().toString();
    List<String> batch =
        List.of("a-" + suffix, "b-" + suffix, "fail-record-" + suffix, "d-" + suffix);
    KafkaBroker.sendAll(topic("test.batch-record-topic"), batch);
    startConsumer();

    // the listener named the failed record itself, not its index: a and b are done, and only the
    // records from the failed one on come again
    for (String body : batch) {
      await().atMost(PATIENCE).until(() -> effects.rows(body) >= 1);
    }
    await().atMost(PATIENCE).until(() -> committedOffset(topic("test.batch-record-topic")) == 4);
    for (String body : batch) {
      assertThat(effects.rows(body)).as(body).isEqualTo(1);
    }
  }

  @Test
  void aBatchThatNacksBeforeARecordWithoutAnIdLosesNoRecord() throws Exception {
    properties.put("test.redis-url", KafkaTestApplication.redisUrl());
    properties.put("idem.store", "redis");
    properties.put("test.batch-nack-topic", KafkaBroker.topic("it-batch-nacks", 1));
    properties.put("test.batch-nacks", "true");
    String topic = topic("test.batch-nack-topic");
    String suffix = UUID.randomUUID().toString();
    List<String> applied =
        List.of("a-" + suffix, "nack-at-" + suffix, "c-" + suffix, "d-" + suffix);
    // one poll takes them all: the listener gets the records before the one without an id
    KafkaBroker.send(topic, null, applied.get(0), applied.get(0));
    KafkaBroker.send(topic, null, applied.get(1), applied.get(1));
    KafkaBroker.send(topic, null, applied.get(2), applied.get(2));
    KafkaBroker.send(topic, null, "no-id-" + suffix, null);
    KafkaBroker.send(topic, null, applied.get(3), applied.get(3));
    startConsumer();

    // the listener gave back the records from the nacked one on: they come again, the record
    // without an id with them, and none is committed unhandled
    for (String body : applied) {
      await().atMost(PATIENCE).until(() -> effects.rows(body) >= 1);
    }
    for (String body : applied) {
      assertThat(effects.rows(body)).as(body).isEqualTo(1);
    }
  }

  @Test
  void aRecordWithoutAMessageIdGoesToTheErrorHandlersDeadLetterTopic() throws Exception {
    startConsumer();
    String poison = "no-id-" + UUID.randomUUID();
    String after = UUID.randomUUID().toString();

    KafkaBroker.send(topic("test.topic"), null, poison, null);
    KafkaBroker.send(topic("test.topic"), null, after, after);

    await().atMost(PATIENCE).until(() -> effects.rows(after) == 1);
    assertThat(deadLetters(topic("test.topic") + "-dlt")).containsExactly(poison);
    assertThat(effects.rows(poison)).isZero();
  }

  @Test
  void aBatchWithARecordWithoutAnIdHandlesTheRecordsAroundIt() throws Exception {
    ConfigurableApplicationContext consumer = startConsumer();
    OutcomeLog outcomes = consumer.getBean(OutcomeLog.class);
    String a = "a-" + UUID.randomUUID();
    String poison = "no-id-" + UUID.randomUUID();
    String c = "c-" + UUID.randomUUID();

    KafkaBroker.send(topic("test.batch-topic"), null, a, a);
    KafkaBroker.send(topic("test.batch-topic"), null, poison, null);
    KafkaBroker.send(topic("test.batch-topic"), null, c, c);

    await().atMost(PATIENCE).until(() -> effects.rows(c) == 1);
    assertThat(outcomes.count(a, ExecutionOutcome.EXECUTED)).isEqualTo(1);
    assertThat(deadLetters(topic("test.batch-topic") + "-dlt")).containsExactly(poison);
    assertThat(effects.rows()).isEqualTo(2);
  }

  @Test
  void withTheListenerStoreOnJdbcTheRecordCommitsWithTheEffectWhileTheApplicationUsesRedis()
      throws Exception {
    properties.put("test.redis-url", KafkaTestApplication.redisUrl());
    properties.put("idem.store", "redis");
    properties.put("idem.kafka.store", "jdbc");
    ConfigurableApplicationContext consumer = startConsumer();
    OutcomeLog outcomes = consumer.getBean(OutcomeLog.class);
    String body = "fail-once-" + UUID.randomUUID();

    KafkaBroker.send(topic("test.topic"), null, body, body);
    KafkaBroker.send(topic("test.topic"), null, body, body);

    await().atMost(PATIENCE).until(() -> outcomes.count(body, ExecutionOutcome.REPLAYED) == 1);
    assertThat(consumer.getBean(IdempotencyStore.class).getClass().getSimpleName())
        .contains("Redis");
    assertThat(effects.rows(body)).isEqualTo(1);
    assertThat(consumer.getBean(KafkaTestListeners.class).allInTransaction()).isTrue();
    assertThat(
            consumer
                .getBean(JdbcTemplate.class)
                .queryForObject(
                    "SELECT state FROM idem_kafka_it_records WHERE scope = ? AND key_value = ?",
                    String.class,
                    "consumer:effects",
                    body))
        .isEqualTo("COMPLETED");
  }

  private long committedOffset(String topic) {
    return KafkaBroker.committedOffset((String) properties.get("test.group"), topic);
  }

  private List<String> deadLetters(String topic) {
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> reader = reader("dlt-" + UUID.randomUUID())) {
      reader.subscribe(List.of(topic));
      await()
          .atMost(PATIENCE)
          .until(
              () -> {
                ConsumerRecords<String, String> records = reader.poll(Duration.ofMillis(500));
                records.forEach(r -> values.add(r.value()));
                return !values.isEmpty();
              });
    }
    return values;
  }

  private static KafkaConsumer<String, String> reader(String group) {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            KafkaBroker.servers(),
            ConsumerConfig.GROUP_ID_CONFIG,
            group,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest"),
        new StringDeserializer(),
        new StringDeserializer());
  }
}
