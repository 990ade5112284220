package dev.idem.shop.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.ExecutionOutcome;
import dev.idem.shop.ServicesDatabase;
import dev.idem.testsupport.ChildJvm;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The loyalty listener's process dies (halted as by SIGKILL) in the middle of a delivery from
 * Spring Modulith's registry, before and after the commit of the points; a new process finds the
 * publication incomplete (marked failed once stale), resubmits it, and the points are given once.
 * PostgreSQL at 127.0.0.1:5432, a database {@code shop_crash_it} of its own.
 */
class LoyaltyCrashServicesIT {

  private static final String DATABASE = "shop_crash_it";
  private static final String URL = "jdbc:postgresql://127.0.0.1:5432/" + DATABASE;
  private static final Duration STARTUP = Duration.ofSeconds(120);
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private static final Map<String, Object> PROPERTIES =
      Map.of(
          "spring.datasource.url", URL,
          "spring.datasource.username", "postgres",
          "spring.datasource.password", "");

  @BeforeAll
  static void createDatabase() throws SQLException {
    ServicesDatabase.recreatePostgres(DATABASE);
    try (Connection c = DriverManager.getConnection(URL, "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE loyalty_points (entry_id VARCHAR(64) NOT NULL, username VARCHAR(64) NOT"
              + " NULL, order_no VARCHAR(64) NOT NULL, points BIGINT NOT NULL)");
    }
  }

  @AfterAll
  static void dropDatabase() throws SQLException {
    ServicesDatabase.dropPostgres(DATABASE);
  }

  @Test
  void aListenerKilledAfterItsCommitIsResubmittedAndReplayedNotAppliedAgain() throws Exception {
    String paymentNo = "PAY-" + UUID.randomUUID();
    crashAt("after-commit", "COMMITTED", paymentNo);
    assertThat(points(paymentNo)).isEqualTo(1);
    assertThat(incomplete(paymentNo)).isEqualTo(1);

    List<ExecutionOutcome> deliveries = restartUntilCompleted(paymentNo);

    assertThat(deliveries).containsExactly(ExecutionOutcome.REPLAYED);
    assertThat(points(paymentNo)).isEqualTo(1);
  }

  @Test
  void aListenerKilledBeforeItsCommitLeavesNothingAndItsResubmissionAppliesItOnce()
      throws Exception {
    String paymentNo = "PAY-" + UUID.randomUUID();
    crashAt("before-commit", "INSERTED", paymentNo);
    assertThat(points(paymentNo)).isZero();
    assertThat(incomplete(paymentNo)).isEqualTo(1);

    List<ExecutionOutcome> deliveries = restartUntilCompleted(paymentNo);

    assertThat(deliveries).containsExactly(ExecutionOutcome.EXECUTED);
    assertThat(points(paymentNo)).isEqualTo(1);
  }

  private static void crashAt(String point, String line, String paymentNo) throws Exception {
    List<String> args = arguments();
    args.add("--test.crash=" + point);
    args.add("--test.payment=" + paymentNo);
    try (ChildJvm child = ChildJvm.start(LoyaltyCrashApp.class, args.toArray(String[]::new))) {
      child.awaitLine("READY", STARTUP);
      child.awaitLine(line, PATIENCE);
      assertThat(child.awaitExit(PATIENCE)).isEqualTo(137);
    }
  }

  // A new process: the registry marks the stale delivery failed, the shop's retry resubmits it.
  private static List<ExecutionOutcome> restartUntilCompleted(String paymentNo) {
    String eventId = PaymentSucceeded.TOPIC + ":" + paymentNo;
    List<ExecutionOutcome> deliveries = new CopyOnWriteArrayList<>();
    try (ConfigurableApplicationContext again =
        LoyaltyCrashApp.start(arguments(restart).toArray(String[]::new))) {
      again
          .getBean(LoyaltyDeliveries.class)
          .observe(
              (id, outcome) -> {
                if (id.equals(eventId)) {
                  deliveries.add(outcome);
                }
              });
      await().atMost(PATIENCE).until(() -> incomplete(paymentNo) == 0);
    }
    return deliveries;
  }

  // command-line arguments: they come before the shop's application.yml, which names H2
  private static List<String> arguments(String... more) {
    List<String> args = new ArrayList<>();
    PROPERTIES.forEach((name, value) -> args.add("--" + name + "=" + value));
    args.addAll(List.of(more));
    return args;
  }

  private static final String[] restart = {
    "--spring.modulith.events.staleness.processing=1s",
    "--spring.modulith.events.staleness.published=1s",
    "--spring.modulith.events.staleness.check-intervall=500ms",
    "--shop.messaging.resubmit-interval=200ms",
    "--shop.messaging.resubmit-older-than=0s"
  };

  private static long points(String paymentNo) {
    return jdbc()
        .queryForObject(
            "SELECT COUNT(*) FROM loyalty_points WHERE order_no = ?",
            Long.class,
            "ORD-" + paymentNo);
  }

  private static long incomplete(String paymentNo) {
    return jdbc()
        .queryForObject(
            "SELECT COUNT(*) FROM EVENT_PUBLICATION WHERE completion_date IS NULL"
                + " AND serialized_event LIKE ?",
            Long.class,
            "%" + paymentNo + "%");
  }

  private static JdbcTemplate jdbc() {
    return new JdbcTemplate(
        new org.springframework.jdbc.datasource.DriverManagerDataSource(URL, "postgres", ""));
  }
}
