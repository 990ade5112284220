package dev.idem.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.ExecutionOutcome;
import dev.idem.spring.messaging.EffectsTable;
import dev.idem.spring.messaging.OutcomeLog;
import dev.idem.testsupport.ChildJvm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * A consumer loses its records between the effect's commit and the offset's: killed with SIGKILL in
 * a child JVM, or thrown out of its group by a rebalance in the middle of a batch. The records go
 * to a second consumer of the group, whose effects are counted. PostgreSQL for the effects and the
 * JDBC store; the broker is the tests' in-process one.
 */
class KafkaListenerCrashIT {

  private static final Duration STARTUP = Duration.ofSeconds(120);
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  private EffectsTable effects;
  private final Map<String, Object> properties = new HashMap<>();
  private final List<ConfigurableApplicationContext> consumers = new ArrayList<>();

  @BeforeEach
  void topics() {
    effects = new EffectsTable();
    properties.putAll(KafkaTestApplication.freshTopics("crash", effects));
    KafkaTestListeners.stalled = new CountDownLatch(1);
  }

  @AfterEach
  void cleanUp() {
    KafkaTestListeners.stalled.countDown();
    try {
      consumers.forEach(ConfigurableApplicationContext::close);
    } finally {
      effects.close();
    }
  }

  private ConfigurableApplicationContext startConsumer(Map<String, Object> extra) {
    Map<String, Object> all = new HashMap<>(properties);
    all.putAll(extra);
    ConfigurableApplicationContext consumer = KafkaTestApplication.start(all);
    consumers.add(consumer);
    return consumer;
  }

  @Test
  void aConsumerKilledAfterTheCommitButBeforeTheOffsetCommitLeavesARedeliveryWithoutAnEffect()
      throws Exception {
    String id = UUID.randomUUID().toString();
    List<String> args = new ArrayList<>();
    properties.forEach((name, value) -> args.add("--" + name + "=" + value));
    args.add("--test.crash=after-commit");
    try (ChildJvm child =
        ChildJvm.start(CrashingKafkaConsumer.class, args.toArray(String[]::new))) {
      child.awaitLine("READY", STARTUP);
      KafkaBroker.send((String) properties.get("test.topic"), null, id, id);
      child.awaitLine("COMMITTED " + id, PATIENCE);
      assertThat(effects.rows(id)).isEqualTo(1);
      assertThat(child.kill()).isNotZero();
    }

    ConfigurableApplicationContext second = startConsumer(Map.of());
    OutcomeLog outcomes = second.getBean(OutcomeLog.class);
    await().atMost(PATIENCE).until(() -> outcomes.count(id, ExecutionOutcome.REPLAYED) == 1);

    assertThat(second.getBean(KafkaTestListeners.class).calls()).isZero();
    assertThat(effects.rows(id)).isEqualTo(1);
  }

  @Test
  void aClaimLeftByAConsumerKilledMidWorkIsWaitedOutAndTakenOverRatherThanFailed()
      throws Exception {
    // the Redis store: the claim outlives the killed consumer until its lease (15 s) runs out,
    // longer than the group takes to hand the partition to the second consumer
    properties.put("test.redis-url", KafkaTestApplication.redisUrl());
    properties.put("idem.store", "redis");
    properties.put("idem.policies.effects.lease", "15s");
    String id = UUID.randomUUID().toString();
    try (ChildJvm child = startChild("before-effect")) {
      KafkaBroker.send((String) properties.get("test.topic"), null, id, id);
      child.awaitLine("CLAIMED " + id, PATIENCE);
      assertThat(child.kill()).isNotZero();
    }

    ConfigurableApplicationContext second = startConsumer(Map.of());
    OutcomeLog outcomes = second.getBean(OutcomeLog.class);
    // without the wait, the error handler's three quick attempts meet the live claim and the
    // record goes to the dead-letter topic unapplied
    await().atMost(PATIENCE).until(() -> effects.rows(id) == 1);
    assertThat(outcomes.count(id, ExecutionOutcome.IN_PROGRESS)).isZero();
    assertThat(second.getBean(KafkaTestListeners.class).calls()).isEqualTo(1);
  }

  @Test
  void readProcessWriteInAKafkaTransactionSendsEachMessageOnOnceAcrossACrashAndAResend()
      throws Exception {
    String output = KafkaBroker.topic("output", 1);
    properties.put("test.forward", "true");
    properties.put("test.forward-topic", KafkaBroker.topic("forward", 1));
    properties.put("test.output-topic", output);
    // the container runs each call in a Kafka transaction that also commits the offset
    properties.put("spring.kafka.producer.transaction-id-prefix", "it-" + UUID.randomUUID());
    properties.put("spring.kafka.producer.properties.transaction.timeout.ms", "10000");
    properties.put("spring.kafka.consumer.isolation-level", "read_committed");
    properties.put("test.redis-url", KafkaTestApplication.redisUrl());
    properties.put("idem.store", "redis");
    properties.put("idem.policies.forward.lease", "15s");
    String id = UUID.randomUUID().toString();
    try (ChildJvm child = startChild("before-kafka-commit")) {
      KafkaBroker.send((String) properties.get("test.forward-topic"), null, id, id);
      child.awaitLine("SENT " + id, PATIENCE);
      assertThat(child.kill()).isNotZero();
    }

    ConfigurableApplicationContext second = startConsumer(Map.of());
    OutcomeLog outcomes = second.getBean(OutcomeLog.class);
    await().atMost(PATIENCE).until(() -> outcomes.count(id, ExecutionOutcome.EXECUTED) == 1);
    // the producer sends the same message again: answered from the record, nothing sent on
    KafkaBroker.send((String) properties.get("test.forward-topic"), null, id, id);
    await().atMost(PATIENCE).until(() -> outcomes.count(id, ExecutionOutcome.REPLAYED) == 1);

    // the killed consumer's send was aborted with its transaction: one record reached the output
    assertThat(KafkaBroker.committedValues(output, 1)).containsExactly(id);
  }

  private ChildJvm startChild(String crash) throws Exception {
    List<String> args = new ArrayList<>();
    properties.forEach((name, value) -> args.add("--" + name + "=" + value));
    args.add("--test.crash=" + crash);
    ChildJvm child = ChildJvm.start(CrashingKafkaConsumer.class, args.toArray(String[]::new));
    child.awaitLine("READY", STARTUP);
    return child;
  }

  @Test
  void aRebalanceInTheMiddleOfABatchLeavesEachRecordWithOneEffect() throws Exception {
    // the first consumer stalls in the middle of its batch for longer than its poll interval, so
    // the group takes its partition away and hands the uncommitted batch to the second consumer
    ConfigurableApplicationContext first =
        startConsumer(Map.of("spring.kafka.consumer.properties.max.poll.interval.ms", "3000"));
    KafkaTestListeners firstListeners = first.getBean(KafkaTestListeners.class);
    // started now, as its start-up (the store's schema statements) would wait for the stalled
    // transaction; its batch listener joins the group later
    ConfigurableApplicationContext second =
        startConsumer(Map.of("test.batch-auto-startup", "false"));
    MessageListenerContainer secondBatch =
        second.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer("batch");
    String suffix = UUID.randomUUID().toString();
    List<String> batch = List.of("a-" + suffix, "stall-" + suffix, "c-" + suffix);
    KafkaBroker.sendAll((String) properties.get("test.batch-topic"), batch);
    await().atMost(PATIENCE).until(() -> firstListeners.calls() == 2);

    secondBatch.start();
    await().atMost(PATIENCE).until(() -> !secondBatch.getAssignedPartitions().isEmpty());
    KafkaTestListeners.stalled.countDown();

    for (String body : batch) {
      await().atMost(PATIENCE).until(() -> effects.rows(body) == 1);
    }
    // the batch may come again, to the second consumer or (once it rejoined the group) to the
    // first, whose offset commit failed, or the first may commit it after all: whichever way,
    // the group ends past the batch and no record ran twice
    String group = (String) properties.get("test.group");
    String topic = (String) properties.get("test.batch-topic");
    await().atMost(PATIENCE).until(() -> KafkaBroker.committedOffset(group, topic) == 3);
    // each record ran once in all: the stalled batch's on the first consumer, a record polled
    // after it (the batch may have come in two polls) on whichever consumer had the partition
    assertThat(firstListeners.calls() + second.getBean(KafkaTestListeners.class).calls())
        .isEqualTo(3);
    assertThat(effects.rows()).isEqualTo(3);
  }
}
