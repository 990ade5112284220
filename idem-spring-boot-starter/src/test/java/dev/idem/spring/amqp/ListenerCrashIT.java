package dev.idem.spring.amqp;

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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A consumer in a child JVM takes a message and is killed with SIGKILL at a point the test chooses;
 * RabbitMQ redelivers the unacknowledged message to a second consumer started in this JVM.
 * PostgreSQL for the effects and the JDBC store, RabbitMQ on 127.0.0.1:5672.
 */
class ListenerCrashIT {

  private static final Duration STARTUP = Duration.ofSeconds(120);
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private RabbitQueues rabbit;
  private EffectsTable effects;
  private final Map<String, Object> properties = new HashMap<>();

  @BeforeEach
  void declare() {
    rabbit = new RabbitQueues();
    effects = new EffectsTable();
    properties.put("test.table", effects.name);
    properties.put("test.queue", rabbit.declare("crash", null));
    properties.put("test.keyed-queue", rabbit.declare("crash-keyed", null));
    properties.put("test.manual-queue", rabbit.declare("crash-manual", null));
  }

  @AfterEach
  void cleanUp() {
    try {
      rabbit.close();
    } finally {
      effects.close();
    }
  }

  private String queue() {
    return (String) properties.get("test.queue");
  }

  private ChildJvm startChild(String crash) throws Exception {
    List<String> args = new ArrayList<>();
    properties.forEach((name, value) -> args.add("--" + name + "=" + value));
    args.add("--test.crash=" + crash);
    ChildJvm child = ChildJvm.start(CrashingConsumer.class, args.toArray(String[]::new));
    child.awaitLine("READY", STARTUP);
    return child;
  }

  @Test
  void aConsumerKilledAfterTheCommitButBeforeTheAckLeavesARedeliveryWithoutASecondEffect()
      throws Exception {
    String id = UUID.randomUUID().toString();
    try (ChildJvm child = startChild("after-commit")) {
      rabbit.publish(queue(), id, id, Map.of());
      child.awaitLine("COMMITTED " + id, PATIENCE);
      assertThat(effects.rows(id)).isEqualTo(1);
      assertThat(child.kill()).isNotZero();
    }

    OutcomeLog outcomes;
    TestListeners listeners;
    try (ConfigurableApplicationContext second = AmqpTestApplication.start(properties)) {
      outcomes = second.getBean(OutcomeLog.class);
      listeners = second.getBean(TestListeners.class);
      await().atMost(PATIENCE).until(() -> outcomes.count(id, ExecutionOutcome.REPLAYED) == 1);
    }

    assertThat(listeners.calls()).isZero();
    assertThat(outcomes.count(id, ExecutionOutcome.EXECUTED)).isZero();
    assertThat(effects.rows(id)).isEqualTo(1);
    assertThat(rabbit.depth(queue())).isZero();
  }

  @Test
  void aConsumerKilledBeforeTheCommitLeavesNothingAndTheRedeliveryAppliesTheMessageOnce()
      throws Exception {
    String id = UUID.randomUUID().toString();
    try (ChildJvm child = startChild("before-commit")) {
      rabbit.publish(queue(), id, id, Map.of());
      child.awaitLine("INSERTED " + id, PATIENCE);
      assertThat(child.kill()).isNotZero();
    }
    assertThat(effects.rows(id)).isZero();

    OutcomeLog outcomes;
    TestListeners listeners;
    try (ConfigurableApplicationContext second = AmqpTestApplication.start(properties)) {
      outcomes = second.getBean(OutcomeLog.class);
      listeners = second.getBean(TestListeners.class);
      await().atMost(PATIENCE).until(() -> outcomes.count(id, ExecutionOutcome.EXECUTED) == 1);
    }

    assertThat(listeners.calls()).isEqualTo(1);
    assertThat(effects.rows(id)).isEqualTo(1);
    assertThat(rabbit.depth(queue())).isZero();
  }
}
