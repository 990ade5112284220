package dev.idem.spring.amqp;

import dev.idem.spring.messaging.IdempotentListener;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Listeners whose effect is one row in the table {@code test.table} per call. {@code test.crash}
 * makes them stop for good at a point a crash test kills the process: {@code before-commit} after
 * the row is written, {@code after-commit} once the transaction committed (before the container
 * acknowledges). A body starting with {@code fail-once} fails its first attempt after writing; one
 * starting with {@code reject-manual} throws an {@link AmqpRejectAndDontRequeueException} asking
 * the container to reject it (its {@code rejectManual} set).
 */
public class TestListeners {

  private final JdbcTemplate jdbc;
  private final String table;
  private final String crash;

  private final AtomicInteger calls = new AtomicInteger();
  private final Set<String> threads = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean allInTransaction = new AtomicBoolean(true);
  private final Set<String> failedOnce = ConcurrentHashMap.newKeySet();
  private final List<Integer> batchSizes = new CopyOnWriteArrayList<>();

  public TestListeners(
      JdbcTemplate jdbc,
      @Value("${test.table}") String table,
      @Value("${test.crash:none}") String crash) {
    this.jdbc = jdbc;
    this.table = table;
    this.crash = crash;
  }

  // Accessors, not fields: the bean is a proxy (for the listener advice) whose own fields are
  // unset.

  /** How often a listener body ran in this process. */
  public int calls() {
    return calls.get();
  }

  /** The threads bodies ran on. */
  public Set<String> threads() {
    return Set.copyOf(threads);
  }

  /** False once a body ran without a Spring transaction. */
  public boolean allInTransaction() {
    return allInTransaction.get();
  }

  @IdempotentListener("effects")
  @RabbitListener(id = "effects", queues = "${test.queue}", concurrency = "${test.concurrency:1}")
  public void apply(String body) throws InterruptedException {
    effect(body);
  }

  @IdempotentListener(value = "keyed", key = "headers['order-id']")
  @RabbitListener(id = "keyed", queues = "${test.keyed-queue}")
  public void applyKeyed(String body) throws InterruptedException {
    effect(body);
  }

  @IdempotentListener("manual")
  @RabbitListener(id = "manual", queues = "${test.manual-queue}", ackMode = "MANUAL")
  public void applyWithManualAck(String body) throws InterruptedException {
    effect(body);
  }

  /** The sizes of the lists the batch listener got, in order. */
  public List<Integer> batchSizes() {
    return List.copyOf(batchSizes);
  }

  @IdempotentListener("batched")
  @RabbitListener(
      id = "batched",
      queues = "${test.batch-queue:unused}",
      containerFactory = "batchFactory",
      concurrency = "${test.batch-concurrency:1}",
      autoStartup = "${test.batch:false}")
  public void applyBatch(List<String> bodies) throws InterruptedException {
    batchSizes.add(bodies.size());
    for (String body : bodies) {
      effect(body);
    }
  }

  @IdempotentListener("batched-manual")
  @RabbitListener(
      id = "batched-manual",
      queues = "${test.batch-manual-queue:unused}",
      containerFactory = "batchFactory",
      ackMode = "MANUAL",
      autoStartup = "${test.batch:false}")
  public void applyBatchWithManualAck(List<Message> messages) throws InterruptedException {
    batchSizes.add(messages.size());
    for (Message message : messages) {
      effect(new String(message.getBody(), StandardCharsets.UTF_8));
    }
  }

  private void effect(String body) throws InterruptedException {
    calls.incrementAndGet();
    threads.add(Thread.currentThread().getName());
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      allInTransaction.set(false);
    }
    jdbc.update("INSERT INTO " + table + " (body) VALUES (?)", body);
    if (body.startsWith("reject-manual")) {
      throw new AmqpRejectAndDontRequeueException("the listener refuses " + body, true, null);
    }
    if (body.startsWith("fail-once") && failedOnce.add(body)) {
      throw new IllegalStateException("the first attempt of " + body + " fails");
    }
    if (crash.equals("before-commit")) {
      say("INSERTED " + body);
      new CountDownLatch(1).await(); // until the test kills this process
    }
    if (crash.equals("after-commit")) {
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void afterCommit() {
              say("COMMITTED " + body);
              try {
                new CountDownLatch(1).await(); // committed, not yet acknowledged: killed here
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
