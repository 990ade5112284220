package dev.idem.spring.kafka;

import dev.idem.spring.messaging.IdempotentListener;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Kafka listeners whose effect is one row in the table {@code test.table} per record body, and one
 * that sends each body on to another topic ({@code forward}, off unless {@code test.forward}). A
 * body starting with {@code fail-once} fails its first attempt after writing; one starting with
 * {@code stall} waits, after writing, until {@link #stalled} is counted down. {@code test.crash}
 * makes them stop for good where a crash test kills the process: {@code before-effect} once the
 * message id is claimed, {@code after-commit} once their transaction committed (before the offset
 * is), {@code before-kafka-commit} once the forwarded record is sent in the Kafka transaction.
 */
public class KafkaTestListeners {

  /** Released by a test to let the {@code stall} bodies go on. */
  static volatile CountDownLatch stalled = new CountDownLatch(1);

  private final JdbcTemplate jdbc;
  private final String table;
  private final String crash;
  private final String output;
  private final ObjectProvider<KafkaTemplate<Object, Object>> forwarding;
  private final Notifier notifier;

  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicBoolean allInTransaction = new AtomicBoolean(true);
  private final Queue<List<String>> batches = new ConcurrentLinkedQueue<>();
  private final Queue<String> failedOnce = new ConcurrentLinkedQueue<>();

  public KafkaTestListeners(
      JdbcTemplate jdbc,
      @Value("${test.table}") String table,
      @Value("${test.crash:none}") String crash,
      @Value("${test.output-topic:output-unused}") String output,
      ObjectProvider<KafkaTemplate<Object, Object>> forwarding,
      Notifier notifier) {
    this.jdbc = jdbc;
    this.table = table;
    this.crash = crash;
    this.output = output;
    this.forwarding = forwarding;
    this.notifier = notifier;
  }

  // Accessors, not fields: the bean is a proxy (for the listener advice) whose own fields are
  // unset.

  /** How often a listener body ran in this process. */
  public int calls() {
    return calls.get();
  }

  /** The batches the batch listener was called with, in order. */
  public List<List<String>> batches() {
    return List.copyOf(batches);
  }

  /** False once a body ran without a Spring transaction. */
  public boolean allInTransaction() {
    return allInTransaction.get();
  }

  @IdempotentListener("effects")
  @KafkaListener(id = "effects", topics = "${test.topic}", groupId = "${test.group}")
  public void apply(String body) throws InterruptedException {
    if (body.contains("step-")) {
      notifier.notify(body); // a step of the record: once, whatever becomes of the transaction
    }
    effect(body);
  }

  @IdempotentListener(value = "keyed", key = "key")
  @KafkaListener(id = "keyed", topics = "${test.keyed-topic}", groupId = "${test.group}")
  public void applyKeyed(String body) throws InterruptedException {
    effect(body);
  }

  @IdempotentListener(value = "manual", key = "payload")
  @KafkaListener(
      id = "manual",
      topics = "${test.manual-topic}",
      groupId = "${test.group}",
      containerFactory = "manualFactory")
  public void applyWithAck(String body, Acknowledgment ack) throws InterruptedException {
    if (body.startsWith("nack-once") && !failedOnce.contains(body)) {
      failedOnce.add(body); // cannot apply it now: asks for it again, writing nothing
      ack.nack(Duration.ZERO);
      return;
    }
    effect(body);
    ack.acknowledge();
  }

  /**
   * Read-process-write: sends each body on to {@code test.output-topic}, in the Kafka transaction.
   */
  @IdempotentListener("forward")
  @KafkaListener(
      id = "forward",
      topics = "${test.forward-topic:forward-unused}",
      groupId = "${test.group}",
      autoStartup = "${test.forward:false}")
  public void forward(String body) throws Exception {
    calls.incrementAndGet();
    forwarding.getObject().send(output, body).get();
    if (crash.equals("before-kafka-commit")) {
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
              say("SENT " + body);
              try {
                new CountDownLatch(1).await(); // sent, the transaction not committed: killed here
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          });
    }
  }

  @IdempotentListener("batch")
  @KafkaListener(
      id = "batch",
      topics = "${test.batch-topic}",
      autoStartup = "${test.batch-auto-startup:true}",
      groupId = "${test.group}",
      containerFactory = "batchFactory")
  public void applyAll(List<String> bodies) throws InterruptedException {
    batches.add(List.copyOf(bodies));
    for (int i = 0; i < bodies.size(); i++) {
      String body = bodies.get(i);
      if (body.startsWith("fail-at-once") && !failedOnce.contains(body)) {
        failedOnce.add(body); // the records before it are written, in the same transaction
        throw new BatchListenerFailedException("cannot apply " + body + " now", i);
      }
      effect(body);
    }
  }

  /**
   * A batch listener outside any transaction (started by {@code test.batch-acks}) that acknowledges
   * each record as it is applied; a body starting with {@code throw-at-once} makes its first
   * attempt throw a plain exception there, the records before it applied.
   */
  @IdempotentListener("batch-acks")
  @KafkaListener(
      id = "batch-acks",
      topics = "${test.batch-ack-topic:batch-ack-unused}",
      autoStartup = "${test.batch-acks:false}",
      groupId = "${test.group}",
      containerFactory = "batchManualFactory")
  public void applyAllAcknowledging(List<String> bodies, Acknowledgment ack)
      throws InterruptedException {
    batches.add(List.copyOf(bodies));
    for (int i = 0; i < bodies.size(); i++) {
      String body = bodies.get(i);
      if (body.startsWith("throw-at-once") && !failedOnce.contains(body)) {
        failedOnce.add(body);
        throw new IllegalStateException("cannot apply " + body + " now");
      }
      effect(body);
      ack.acknowledge(i);
    }
  }

  /**
   * A batch listener outside any transaction (started by {@code test.batch-records}) that takes the
   * records themselves; a body starting with {@code fail-record} makes its first attempt throw
   * {@link BatchListenerFailedException} naming that record (not its index), the records before it
   * applied.
   */
  @IdempotentListener("batch-records")
  @KafkaListener(
      id = "batch-records",
      topics = "${test.batch-record-topic:batch-record-unused}",
      autoStartup = "${test.batch-records:false}",
      groupId = "${test.group}",
      containerFactory = "batchFactory")
  public void applyRecords(List<ConsumerRecord<String, String>> records)
      throws InterruptedException {
    batches.add(records.stream().map(ConsumerRecord::value).toList());
    for (ConsumerRecord<String, String> record : records) {
      String body = record.value();
      if (body.startsWith("fail-record") && !failedOnce.contains(body)) {
        failedOnce.add(body);
        throw new BatchListenerFailedException("cannot apply " + body + " now", record);
      }
      effect(body);
    }
  }

  /**
   * A batch listener outside any transaction (started by {@code test.batch-nacks}) that gives back
   * the rest of its batch at the first body starting with {@code nack-at}, the first time it sees
   * it, and acknowledges the batch otherwise.
   */
  @IdempotentListener("batch-nacks")
  @KafkaListener(
      id = "batch-nacks",
      topics = "${test.batch-nack-topic:batch-nack-unused}",
      autoStartup = "${test.batch-nacks:false}",
      groupId = "${test.group}",
      containerFactory = "batchManualFactory")
  public void applyAllNacking(List<String> bodies, Acknowledgment ack) throws InterruptedException {
    batches.add(List.copyOf(bodies));
    for (int i = 0; i < bodies.size(); i++) {
      String body = bodies.get(i);
      if (body.startsWith("nack-at") && !failedOnce.contains(body)) {
        failedOnce.add(body);
        ack.nack(i, Duration.ZERO);
        return;
      }
      effect(body);
    }
    ack.acknowledge();
  }

  private void effect(String body) throws InterruptedException {
    if (crash.equals("before-effect")) {
      say("CLAIMED " + body);
      new CountDownLatch(1).await(); // claimed, nothing written: killed here
    }
    calls.incrementAndGet();
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      allInTransaction.set(false);
    }
    jdbc.update("INSERT INTO " + table + " (body) VALUES (?)", body);
    if (body.startsWith("fail-once") && !failedOnce.contains(body)) {
      failedOnce.add(body);
      throw new IllegalStateException("the first attempt of " + body + " fails");
    }
    if (body.startsWith("stall")) {
      say("STALLED " + body);
      stalled.await(2, TimeUnit.MINUTES);
    }
    if (crash.equals("after-commit")) {
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void afterCommit() {
              say("COMMITTED " + body);
              try {
                new CountDownLatch(1).await(); // committed, offset not committed: killed here
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          });
    }
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
