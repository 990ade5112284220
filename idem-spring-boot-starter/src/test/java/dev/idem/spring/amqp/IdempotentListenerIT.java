package dev.idem.spring.amqp;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.spring.messaging.EffectsTable;
import dev.idem.spring.messaging.OutcomeLog;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code @IdempotentListener} on the real RabbitMQ (127.0.0.1:5672) with the JDBC store on
 * PostgreSQL: each test starts the consumer application on fresh queues and a fresh business table,
 * publishes, waits until the engine reports every delivery, stops the consumer, and then counts
 * rows and messages left in the queue (a message not acknowledged goes back to it when the consumer
 * stops). Longer than 400 lines for the number of delivery cases, single and batched, each a short
 * test on one running consumer.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotentListenerIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private RabbitQueues rabbit;
  private EffectsTable effects;
  private String queue;
  private String deadLetters;
  private String keyedQueue;
  private String manualQueue;
  private String batchQueue;
  private String batchManualQueue;
  private ConfigurableApplicationContext consumer;

  @BeforeEach
  void declare() {
    rabbit = new RabbitQueues();
    effects = new EffectsTable();
    deadLetters = rabbit.declare("dead", null);
    queue = rabbit.declare("effects", deadLetters);
    keyedQueue = rabbit.declare("keyed", null);
    manualQueue = rabbit.declare("manual", deadLetters);
    batchQueue = rabbit.declare("batched", deadLetters);
    batchManualQueue = rabbit.declare("batched-manual", deadLetters);
  }

  @AfterEach
  void cleanUp() {
    try {
      if (consumer != null) {
        consumer.close();
      }
    } finally {
      try {
        rabbit.close();
      } finally {
        effects.close();
      }
    }
  }

  private void startConsumer(int concurrency, String... nameValues) {
    Map<String, Object> properties = new HashMap<>();
    for (int i = 0; i < nameValues.length; i += 2) {
      properties.put(nameValues[i], nameValues[i + 1]);
    }
    properties.put("test.table", effects.name);
    properties.put("test.queue", queue);
    properties.put("test.keyed-queue", keyedQueue);
    properties.put("test.manual-queue", manualQueue);
    properties.put("test.batch-queue", batchQueue);
    properties.put("test.batch-manual-queue", batchManualQueue);
    properties.put("test.concurrency", String.valueOf(concurrency));
    consumer = AmqpTestApplication.start(properties);
  }

  private OutcomeLog outcomes() {
    return consumer.getBean(OutcomeLog.class);
  }

  private TestListeners listeners() {
    return consumer.getBean(TestListeners.class);
  }

  /** Stops the consumer; whatever it did not acknowledge is back in its queue afterwards. */
  private void stopConsumer() {
    consumer.close();
  }

  private static String newId() {
    return UUID.randomUUID().toString();
  }

  @Test
  void aMessagePublishedTwiceWithTheSameIdHasOneEffect() {
    startConsumer(1);
    String id = newId();
    rabbit.publish(queue, id, id, Map.of());
    rabbit.publish(queue, id, id, Map.of());

    await().atMost(PATIENCE).until(() -> outcomes().count(id, ExecutionOutcome.REPLAYED) == 1);
    TestListeners listeners = listeners();
    OutcomeLog outcomes = outcomes();
    stopConsumer();

    assertThat(outcomes.count(id, ExecutionOutcome.EXECUTED)).isEqualTo(1);
    assertThat(effects.rows(id)).isEqualTo(1);
    assertThat(listeners.calls()).isEqualTo(1);
    assertThat(listeners.allInTransaction()).isTrue();
    assertThat(rabbit.depth(queue)).isZero();
  }

  @Test
  void fourConcurrentConsumersApplyEachOfManyDuplicatedMessagesOnce() {
    startConsumer(4);
    int ids = 100;
    int copies = 4;
    for (int i = 0; i < ids; i++) {
      String id = "dup-" + i + "-" + newId();
      for (int c = 0; c < copies; c++) {
        rabbit.publish(queue, id, id, Map.of()); // copies back to back, so consumers race on them
      }
    }

    await()
        .atMost(PATIENCE)
        .until(
            () ->
                outcomes().count(ExecutionOutcome.EXECUTED)
                        + outcomes().count(ExecutionOutcome.REPLAYED)
                    >= ids * copies);
    TestListeners listeners = listeners();
    OutcomeLog outcomes = outcomes();
    stopConsumer();

    assertThat(effects.rows()).isEqualTo(ids);
    assertThat(effects.distinctBodies()).isEqualTo(ids);
    assertThat(listeners.calls()).isEqualTo(ids);
    assertThat(listeners.threads()).hasSizeGreaterThan(1);
    // A copy in flight never waits on the first's uncommitted claim row, which would hold a pooled
    // connection for as long as the first runs: it is requeued, and replayed when it comes again.
    assertThat(outcomes.count(ExecutionOutcome.REPLAYED)).isEqualTo(ids * (copies - 1));
    assertThat(rabbit.depth(queue)).isZero();
  }

  @Test
  void onTheMemoryStoreCopiesInFlightAreRequeuedAndEachMessageIsAppliedOnce() {
    startConsumer(4, "idem.store", "memory");
    int ids = 30;
    int copies = 4;
    for (int i = 0; i < ids; i++) {
      String id = "mem-" + i + "-" + newId();
      for (int c = 0; c < copies; c++) {
        rabbit.publish(queue, id, id, Map.of());
      }
    }

    await()
        .atMost(PATIENCE)
        .until(
            () ->
                outcomes().count(ExecutionOutcome.EXECUTED)
                        + outcomes().count(ExecutionOutcome.REPLAYED)
                    >= ids * copies);
    TestListeners listeners = listeners();
    stopConsumer();

    assertThat(effects.rows()).isEqualTo(ids);
    assertThat(effects.distinctBodies()).isEqualTo(ids);
    assertThat(listeners.calls()).isEqualTo(ids);
    assertThat(listeners.allInTransaction()).isFalse(); // no store transaction to join
    assertThat(rabbit.depth(queue)).isZero();
  }

  @Test
  void aMessageWithoutIdIsRejectedWithoutRequeueAndLogged(CapturedOutput output) {
    startConsumer(1);
    rabbit.publish(queue, "no-id", null, Map.of());

    await().atMost(PATIENCE).until(() -> rabbit.depth(deadLetters) == 1);
    TestListeners listeners = listeners();
    stopConsumer();

    assertThat(listeners.calls()).isEqualTo(0);
    assertThat(effects.rows()).isZero();
    assertThat(rabbit.depth(queue)).isZero();
    assertThat(output)
        .contains("for consumer group effects: it has no message-id; rejected without requeue");
  }

  @Test
  void aKeyExpressionTakesTheIdFromAHeader() {
    startConsumer(1);
    String orderId = "order-" + newId();
    rabbit.publish(keyedQueue, "first copy", null, Map.of("order-id", orderId));
    rabbit.publish(keyedQueue, "second copy", null, Map.of("order-id", orderId));

    await().atMost(PATIENCE).until(() -> outcomes().count(orderId, ExecutionOutcome.REPLAYED) == 1);
    TestListeners listeners = listeners();
    stopConsumer();

    assertThat(effects.rows("first copy")).isEqualTo(1);
    assertThat(effects.rows("second copy")).isZero();
    assertThat(listeners.calls()).isEqualTo(1);
    assertThat(rabbit.depth(keyedQueue)).isZero();
  }

  @Test
  void aFailedAttemptLeavesNoEffectAndItsRedeliveryAppliesTheMessageOnce() {
    startConsumer(1);
    String id = "fail-once-" + newId();
    rabbit.publish(queue, id, id, Map.of());

    // The engine reports EXECUTED for a run that failed, too: two runs, the first one failed.
    await().atMost(PATIENCE).until(() -> outcomes().count(id, ExecutionOutcome.EXECUTED) == 2);
    TestListeners listeners = listeners();
    stopConsumer();

    assertThat(listeners.calls()).isEqualTo(2);
    assertThat(effects.rows(id)).isEqualTo(1);
    assertThat(rabbit.depth(queue)).isZero();
    assertThat(rabbit.depth(deadLetters)).isZero();
  }

  @Test
  void withManualAcknowledgementTheAdviceAcknowledgesTheMessageAndItsDuplicate() {
    startConsumer(1);
    String id = newId();
    rabbit.publish(manualQueue, id, id, Map.of());
    rabbit.publish(manualQueue, id, id, Map.of());

    await().atMost(PATIENCE).until(() -> outcomes().count(id, ExecutionOutcome.REPLAYED) == 1);
    stopConsumer();

    assertThat(effects.rows(id)).isEqualTo(1);
    assertThat(rabbit.depth(manualQueue)).isZero();
  }

  @Test
  void withManualAcknowledgementARejectManualFailureIsLeftToTheContainerToReject() {
    startConsumer(1);
    String refused = "reject-manual-" + newId();
    String next = newId();
    rabbit.publish(manualQueue, refused, refused, Map.of());
    rabbit.publish(manualQueue, next, next, Map.of());

    await().atMost(PATIENCE).until(() -> rabbit.depth(deadLetters) == 1);
    await().atMost(PATIENCE).until(() -> outcomes().count(next, ExecutionOutcome.EXECUTED) == 1);
    TestListeners listeners = listeners();
    stopConsumer();

    // one run each: no nack put the refused message back, no closed channel redelivered the next
    assertThat(listeners.calls()).isEqualTo(2);
    assertThat(effects.rows(refused)).isZero();
    assertThat(effects.rows(next)).isEqualTo(1);
    assertThat(rabbit.depth(manualQueue)).isZero();
  }

  @Test
  void eachMessageOfAProducersBatchIsAppliedOnceThoughTheyShareOneDeliveryAndItsId() {
    startConsumer(1);
    List<String> bodies = List.of("split-a-" + newId(), "split-b-" + newId(), "split-c-" + newId());
    rabbit.publishBatch(queue, bodies);
    rabbit.publishBatch(queue, bodies); // the producer sends the same batch again

    await()
        .atMost(PATIENCE)
        .until(() -> outcomes().count(bodies.get(0), ExecutionOutcome.REPLAYED) == 1);
    await().atMost(PATIENCE).until(() -> effects.rows() == 3 && rabbit.depth(queue) == 0);
    TestListeners listeners = listeners();
    stopConsumer();

    for (String body : bodies) {
      assertThat(effects.rows(body)).as(body).isEqualTo(1);
    }
    assertThat(listeners.calls()).as("the second batch's messages are duplicates").isEqualTo(3);
    assertThat(rabbit.depth(deadLetters)).isZero();

    // the same first message with another after it: that one is a message of its own
    String other = "split-d-" + newId();
    startConsumer(1);
    rabbit.publishBatch(queue, List.of(bodies.get(0), other));
    await().atMost(PATIENCE).until(() -> effects.rows(other) == 1 && rabbit.depth(queue) == 0);
    stopConsumer();
    assertThat(effects.rows()).isEqualTo(4);
  }

  @Test
  void withManualAcknowledgementAFailedPartOfAProducersBatchBringsTheWholeDeliveryBack() {
    startConsumer(1);
    List<String> bodies =
        List.of("split-a-" + newId(), "fail-once-split-b-" + newId(), "split-c-" + newId());
    rabbit.publishBatch(manualQueue, bodies);

    await().atMost(PATIENCE).until(() -> effects.rows() == 3 && rabbit.depth(manualQueue) == 0);
    TestListeners listeners = listeners();
    var replayed = outcomes().count(bodies.get(0), ExecutionOutcome.REPLAYED);
    stopConsumer();

    for (String body : bodies) {
      assertThat(effects.rows(body)).as(body).isEqualTo(1);
    }
    assertThat(replayed)
        .as("the part before the failed one is a duplicate when the delivery comes again")
        .isEqualTo(1);
    assertThat(listeners.calls()).as("a, b failing, then b and c").isEqualTo(4);
    assertThat(rabbit.depth(deadLetters)).isZero();
  }

  @Test
  void theContainersOwnRetryRunsAFailedAttemptAgainInPlaceAndEachMessageIsAppliedOnce() {
    startConsumer(
        1,
        "spring.rabbitmq.listener.simple.retry.enabled",
        "true",
        "spring.rabbitmq.listener.simple.retry.initial-interval",
        "10ms");
    String alone = "fail-once-" + newId();
    rabbit.publish(queue, alone, alone, Map.of());
    List<String> bodies = List.of("split-a-" + newId(), "fail-once-split-b-" + newId());
    rabbit.publishBatch(queue, bodies);

    await().atMost(PATIENCE).until(() -> effects.rows() == 3 && rabbit.depth(queue) == 0);
    TestListeners listeners = listeners();
    stopConsumer();

    assertThat(effects.rows(alone)).isEqualTo(1);
    for (String body : bodies) {
      assertThat(effects.rows(body)).as(body).isEqualTo(1);
    }
    assertThat(listeners.calls()).as("each failed attempt retried once").isEqualTo(5);
    assertThat(rabbit.depth(deadLetters)).isZero();

    // the split delivery again: its messages keep their ids, so both are duplicates
    startConsumer(1);
    rabbit.publishBatch(queue, bodies);
    await()
        .atMost(PATIENCE)
        .until(() -> outcomes().count(ExecutionOutcome.REPLAYED) == 2 && rabbit.depth(queue) == 0);
    stopConsumer();
    assertThat(effects.rows()).isEqualTo(3);
  }

  @Test
  void aBatchListenerAppliesEachMessageOfAProducersBatchOnce() {
    startConsumer(1, "test.batch", "true");
    List<String> bodies = List.of("split-a-" + newId(), "split-b-" + newId(), "split-c-" + newId());
    rabbit.publishBatch(batchQueue, bodies);
    rabbit.publishBatch(batchQueue, bodies);

    await().atMost(PATIENCE).until(() -> effects.rows() == 3 && rabbit.depth(batchQueue) == 0);
    TestListeners listeners = listeners();
    stopConsumer();

    for (String body : bodies) {
      assertThat(effects.rows(body)).as(body).isEqualTo(1);
    }
    assertThat(listeners.calls()).isEqualTo(3);
    assertThat(rabbit.depth(deadLetters)).isZero();
  }

  @Test
  void aBatchListenerGetsOnlyTheMessagesNotProcessedBeforeAndAppliesEachOnce() {
    startConsumer(1, "test.batch", "true");
    int ids = 30;
    for (int i = 0; i < ids; i++) {
      String id = "batch-" + i + "-" + newId();
      rabbit.publish(batchQueue, id, id, Map.of());
      rabbit.publish(batchQueue, id, id, Map.of()); // the copy in the same batch or the next
    }

    await().atMost(PATIENCE).until(() -> effects.rows() == ids && rabbit.depth(batchQueue) == 0);
    TestListeners listeners = listeners();
    stopConsumer();

    assertThat(effects.rows()).isEqualTo(ids);
    assertThat(effects.distinctBodies()).isEqualTo(ids);
    assertThat(listeners.calls()).as("each body handed to the listener once").isEqualTo(ids);
    assertThat(listeners.batchSizes()).as("batches of more than one").anyMatch(n -> n > 1);
    assertThat(listeners.allInTransaction()).isTrue();
    assertThat(rabbit.depth(batchQueue)).isZero();
    assertThat(rabbit.depth(deadLetters)).isZero();
  }

  @Test
  void aBatchWhoseListenerFailsComesAgainAndEachMessageIsAppliedOnce() {
    startConsumer(1, "test.batch", "true");
    String failing = "fail-once-" + newId();
    String other = newId();
    rabbit.publish(batchQueue, other, other, Map.of());
    rabbit.publish(batchQueue, failing, failing, Map.of());

    await().atMost(PATIENCE).until(() -> effects.rows(failing) == 1 && effects.rows(other) == 1);
    TestListeners listeners = listeners();
    stopConsumer();

    assertThat(listeners.calls()).as("the failed attempt ran too").isGreaterThan(2);
    assertThat(effects.rows()).as("its writes rolled back with the claims").isEqualTo(2);
    assertThat(rabbit.depth(batchQueue)).isZero();
    assertThat(rabbit.depth(deadLetters)).isZero();
  }

  @Test
  void aMessageWithoutIdInABatchReachesTheDeadLettersAndTheOthersAreAppliedOnce(
      CapturedOutput output) {
    startConsumer(1, "test.batch", "true");
    String first = newId();
    String second = newId();
    rabbit.publish(batchQueue, first, first, Map.of());
    rabbit.publish(batchQueue, "no-id", null, Map.of());
    rabbit.publish(batchQueue, second, second, Map.of());

    await().atMost(PATIENCE).until(() -> rabbit.depth(deadLetters) >= 1);
    await().atMost(PATIENCE).until(() -> effects.rows(first) == 1 && effects.rows(second) == 1);
    TestListeners listeners = listeners();
    stopConsumer();

    assertThat(effects.rows("no-id")).isZero();
    assertThat(effects.rows()).isEqualTo(2);
    assertThat(listeners.calls()).isEqualTo(2);
    assertThat(rabbit.depth(batchQueue)).isZero();
    assertThat(output)
        .contains("for consumer group batched: it has no message-id; rejected without requeue");
  }

  @Test
  void fourBatchConsumersRacingOnCopiesApplyEachMessageOnce() {
    startConsumer(1, "test.batch", "true", "test.batch-concurrency", "4");
    int ids = 60;
    int copies = 3;
    for (int c = 0; c < copies; c++) {
      for (int i = 0; i < ids; i++) {
        // the same ids in the same order each round, so that consumers' batches overlap
        String id = "race-" + i + "-" + batchQueue;
        rabbit.publish(batchQueue, id, id, Map.of());
      }
    }

    await().atMost(PATIENCE).until(() -> effects.rows() == ids && rabbit.depth(batchQueue) == 0);
    TestListeners listeners = listeners();
    stopConsumer();

    assertThat(effects.rows()).isEqualTo(ids);
    assertThat(effects.distinctBodies()).isEqualTo(ids);
    assertThat(listeners.threads()).hasSizeGreaterThan(1);
    assertThat(rabbit.depth(batchQueue)).isZero();
    assertThat(rabbit.depth(deadLetters)).isZero();
  }

  @Test
  void withManualAcknowledgementABatchRejectsOnlyItsMessageWithoutIdAndAcknowledgesTheRest() {
    startConsumer(1, "test.batch", "true");
    String first = newId();
    String second = newId();
    rabbit.publish(batchManualQueue, first, first, Map.of());
    rabbit.publish(batchManualQueue, "no-id", null, Map.of());
    rabbit.publish(batchManualQueue, first, first, Map.of());
    rabbit.publish(batchManualQueue, second, second, Map.of());

    await().atMost(PATIENCE).until(() -> rabbit.depth(deadLetters) == 1);
    await().atMost(PATIENCE).until(() -> effects.rows(first) == 1 && effects.rows(second) == 1);
    stopConsumer();

    assertThat(effects.rows()).isEqualTo(2);
    assertThat(rabbit.depth(deadLetters)).as("the message without id alone").isEqualTo(1);
    assertThat(rabbit.depth(batchManualQueue)).as("the rest acknowledged").isZero();
  }

  @Test
  void withManualAcknowledgementACopyInFlightElsewhereGoesBackAloneAndTheRestOfItsBatchIsApplied() {
    startConsumer(1, "test.batch", "true", "idem.store", "memory");
    String first = newId();
    String inFlight = newId();
    String second = newId();
    IdempotencyStore store = consumer.getBean(IdempotencyStore.class);
    Lease lease = claimElsewhere(store, inFlight);
    publishToBatchQueue(first, inFlight, second);

    await().atMost(PATIENCE).until(() -> effects.rows(first) == 1 && effects.rows(second) == 1);
    assertThat(effects.rows(inFlight)).as("still claimed elsewhere").isZero();
    assertThat(now(store.release(lease))).isTrue();
    await().atMost(PATIENCE).until(() -> effects.rows(inFlight) == 1);
    await().atMost(PATIENCE).until(() -> rabbit.depth(batchManualQueue) == 0);
    stopConsumer();

    assertThat(effects.rows()).isEqualTo(3);
    assertThat(rabbit.depth(batchManualQueue)).as("every message acknowledged").isZero();
    assertThat(rabbit.depth(deadLetters)).isZero();
  }

  @Test
  void withManualAcknowledgementAMessageWhoseStoredAnswerIsAFailureGoesToTheDeadLettersAlone() {
    startConsumer(1, "test.batch", "true", "idem.store", "memory");
    String first = newId();
    String failed = newId();
    String second = newId();
    IdempotencyStore store = consumer.getBean(IdempotencyStore.class);
    Lease lease = claimElsewhere(store, failed);
    byte[] answer = "refused for good".getBytes(StandardCharsets.UTF_8);
    assertThat(now(store.complete(lease, Outcome.failure(answer), Duration.ofHours(1)))).isTrue();
    publishToBatchQueue(first, failed, second);

    await().atMost(PATIENCE).until(() -> effects.rows(first) == 1 && effects.rows(second) == 1);
    await().atMost(PATIENCE).until(() -> rabbit.depth(deadLetters) == 1);
    stopConsumer();

    assertThat(effects.rows()).isEqualTo(2);
    assertThat(rabbit.depth(deadLetters)).as("the message answered by its failure").isEqualTo(1);
    assertThat(rabbit.depth(batchManualQueue)).isZero();
  }

  @Test
  void withManualAcknowledgementAPartInFlightElsewhereBringsItsWholeDeliveryBack(
      CapturedOutput output) {
    startConsumer(1, "test.batch", "true", "idem.store", "memory");
    List<String> bodies = List.of("part-a-" + newId(), "part-b-" + newId(), "part-c-" + newId());
    IdempotencyStore store = consumer.getBean(IdempotencyStore.class);
    // the delivery's id is its first part's; the other parts share its delivery tag
    Lease lease = claimElsewhere(store, bodies.get(0));
    rabbit.publishBatch(batchManualQueue, bodies);

    await()
        .atMost(PATIENCE)
        .until(() -> effects.rows(bodies.get(1)) == 1 && effects.rows(bodies.get(2)) == 1);
    assertThat(effects.rows(bodies.get(0))).as("still claimed elsewhere").isZero();
    assertThat(now(store.release(lease))).isTrue();
    await().atMost(PATIENCE).until(() -> effects.rows(bodies.get(0)) == 1);
    await().atMost(PATIENCE).until(() -> rabbit.depth(batchManualQueue) == 0);
    stopConsumer();

    for (String body : bodies) {
      assertThat(effects.rows(body)).as(body).isEqualTo(1);
    }
    assertThat(rabbit.depth(batchManualQueue)).isZero();
    assertThat(rabbit.depth(deadLetters)).isZero();
    assertThat(output).as("each delivery tag settled once").doesNotContain("PRECONDITION_FAILED");
  }

  // Another consumer's claim on the message id, held until the test gives it back.
  // each message's id is its body
  private void publishToBatchQueue(String... ids) {
    for (String id : ids) {
      rabbit.publish(batchManualQueue, id, id, Map.of());
    }
  }

  private static Lease claimElsewhere(IdempotencyStore store, String id) {
    ClaimRequest elsewhere =
        ClaimRequest.of(
            IdempotencyKey.of("consumer:batched-manual", id),
            Fingerprint.NONE,
            Duration.ofMinutes(5));
    return ((ClaimResult.Claimed) now(store.claim(elsewhere))).lease();
  }
}
