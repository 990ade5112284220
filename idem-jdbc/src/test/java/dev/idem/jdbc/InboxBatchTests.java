package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Deferral;
import dev.idem.core.ExecutionOutcome;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.ResultCodec;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.core.consumer.IdempotentConsumer.Delivery;
import dev.idem.core.consumer.IdempotentConsumer.Handled;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.Outcome;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link JdbcInbox#receiveAll} and {@link JdbcInbox#receiveEach} on a real database: a batch's
 * messages applied once each in one transaction, a failed handler taking back only its own writes
 * (and, when it ends the batch, giving back the rest), the rows other deliveries left (handled, in
 * progress, expired) answered as a single delivery would answer them, and batches over the same ids
 * at once applying each once. Each database runs these through a {@code @Nested} subclass.
 *
 * <p>Over 400 lines because each way a batch can end, on one shared set-up of tables and handlers,
 * is a test of its own.
 */
abstract class InboxBatchTests {

  protected abstract String url();

  protected abstract JdbcDialect dialect();

  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final String scope = "inbox-batch:" + UUID.randomUUID();
  private DataSource ds;
  private JdbcStoreConfig.Builder config;

  @BeforeEach
  void setUp() throws SQLException {
    ds = Databases.pool(url());
    config = JdbcStoreConfig.custom(dialect()).table("idem_inbox");
    JdbcSchema.createIfMissing(ds, config.build());
    JoinModeTests.createOrdersTable(ds);
  }

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
  }

  @Test
  void aBatchAppliesEachMessageOnceAndALaterCopyOfTheBatchIsAllDuplicates() throws Exception {
    List<ExecutionOutcome> heard = new CopyOnWriteArrayList<>();
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group(), (key, o) -> heard.add(o))) {
      List<String> ids = List.of(id("a"), id("b"), id("c"), id("a"));
      assertThat(inbox.receiveAll(ids, placing(ids)))
          .containsExactly(
              Delivery.PROCESSED, Delivery.PROCESSED, Delivery.PROCESSED, Delivery.DUPLICATE);
      assertThat(inbox.receiveAll(ids, placing(ids))).containsOnly(Delivery.DUPLICATE);
      for (String id : ids) {
        assertThat(orders(id)).as(id).isEqualTo(1);
      }
      assertThat(heard)
          .containsExactly(
              ExecutionOutcome.EXECUTED,
              ExecutionOutcome.EXECUTED,
              ExecutionOutcome.EXECUTED,
              ExecutionOutcome.REPLAYED,
              ExecutionOutcome.REPLAYED,
              ExecutionOutcome.REPLAYED,
              ExecutionOutcome.REPLAYED,
              ExecutionOutcome.REPLAYED);
    }
  }

  @Test
  void aBatchOfNewMessagesWritesTheirRowsInOneInsertBesidesItsHandlers() throws Exception {
    CountedStatements counted = new CountedStatements(ds);
    try (JdbcInbox inbox = new JdbcInbox(counted.dataSource(), config, group())) {
      List<String> ids = List.of(id("a"), id("b"), id("c"), id("d"), id("e"));
      counted.take();
      inbox.receiveAll(ids, placing(ids));
      int rows = together() ? 1 : ids.size();
      assertThat(counted.take())
          .as("the rows' insert (one a row on H2), then a handler's insert each")
          .isEqualTo(rows + 5);
      inbox.receiveAll(ids, placing(ids));
      assertThat(counted.take())
          .as("copies: the inserts that met the rows, then their read")
          .isEqualTo(rows + 1);
    }
  }

  @Test
  void aBatchLargerThanOneStatementCarriesTellsItsNewMessagesFromThoseHandledBefore()
      throws Exception {
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group())) {
      List<String> ids = new ArrayList<>();
      List<String> before = new ArrayList<>();
      for (int i = 0; i < 450; i++) {
        ids.add(id("n" + i));
        if (i % 3 == 0) {
          before.add(ids.get(i));
        }
      }
      inbox.receiveAll(before, placing(before));
      List<Delivery> deliveries = inbox.receiveAll(ids, placing(ids));
      for (int i = 0; i < ids.size(); i++) {
        assertThat(deliveries.get(i))
            .as(ids.get(i))
            .isEqualTo(i % 3 == 0 ? Delivery.DUPLICATE : Delivery.PROCESSED);
      }
      for (String id : ids) {
        assertThat(orders(id)).as(id).isEqualTo(1);
      }
    }
  }

  @Test
  void aFailedHandlerTakesBackOnlyItsOwnWritesAndTheMessagesFromItOnComeAgain() throws Exception {
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group())) {
      List<String> ids = List.of(id("0"), id("1"), id("2"), id("3"), id("4"));
      assertThatThrownBy(
              () ->
                  inbox.receiveAll(
                      ids,
                      (i, c) -> {
                        order(i, c, ids);
                        if (i == 2) {
                          throw new SQLException("the message's effect failed after its insert");
                        }
                      }))
          .isInstanceOf(SQLException.class);
      assertThat(List.of(orders(ids.get(0)), orders(ids.get(1)))).containsOnly(1);
      assertThat(List.of(orders(ids.get(2)), orders(ids.get(3)), orders(ids.get(4))))
          .containsOnly(0);
      assertThat(inbox.receiveAll(ids, placing(ids)))
          .containsExactly(
              Delivery.DUPLICATE,
              Delivery.DUPLICATE,
              Delivery.PROCESSED,
              Delivery.PROCESSED,
              Delivery.PROCESSED);
      for (String id : ids) {
        assertThat(orders(id)).as(id).isEqualTo(1);
      }
    }
  }

  @Test
  void aFailureKeepsTheRowOfAMessageThatRanBeforeItThoughACopyOfItComesAfter() throws Exception {
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group())) {
      List<String> ids = List.of(id("a"), id("b"), id("a"));
      assertThatThrownBy(
              () ->
                  inbox.receiveAll(
                      ids,
                      (i, c) -> {
                        order(i, c, ids);
                        if (i == 1) {
                          throw new IllegalStateException("downstream timed out");
                        }
                      }))
          .isInstanceOf(IllegalStateException.class);
      assertThat(orders(ids.get(0))).isEqualTo(1);
      assertThat(inbox.receive(ids.get(0), c -> insertOrder(c, ids.get(0))))
          .isEqualTo(Delivery.DUPLICATE);
      assertThat(inbox.receiveAll(ids.subList(1, 3), placing(ids.subList(1, 3))))
          .containsExactly(Delivery.PROCESSED, Delivery.DUPLICATE);
      assertThat(List.of(orders(ids.get(0)), orders(ids.get(1)))).containsOnly(1);
    }
  }

  @Test
  void theListenerHearsOnlyOfMessagesWhoseBatchCommitted() throws Exception {
    List<ExecutionOutcome> heard = new CopyOnWriteArrayList<>();
    CountedStatements counted = new CountedStatements(ds);
    try (JdbcInbox inbox =
        new JdbcInbox(counted.dataSource(), config, group(), (key, o) -> heard.add(o))) {
      List<String> ids = List.of(id("0"), id("1"));
      counted.failNext("DELETE FROM idem_inbox");
      assertThatThrownBy(
              () ->
                  inbox.receiveAll(
                      ids,
                      (i, c) -> {
                        order(i, c, ids);
                        if (i == 1) {
                          throw new IllegalStateException("downstream timed out");
                        }
                      }))
          .isInstanceOf(IdempotencyStoreException.class);
      assertThat(heard).isEmpty();
      inbox.receiveAll(ids, placing(ids));
      assertThat(heard).containsExactly(ExecutionOutcome.EXECUTED, ExecutionOutcome.EXECUTED);
    }
  }

  @Test
  void aBatchThatGoesOnPastFailuresCommitsEveryOtherMessageAndFreesOnlyTheFailedOnes()
      throws Exception {
    String group = group();
    String busy = id("busy");
    JdbcIdempotencyStore plain = new JdbcIdempotencyStore(ds, config.build());
    IdempotencyKey busyKey = IdempotencyKey.of("consumer:" + group, busy);
    now(plain.claim(ClaimRequest.of(busyKey, Fingerprint.NONE, Duration.ofMinutes(1))));
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group)) {
      String fails = id("fails");
      List<String> ids = List.of(id("a"), fails, busy, id("b"), fails, id("a"));
      List<Handled> handled =
          inbox.receiveEach(
              ids,
              (i, c) -> {
                order(i, c, ids);
                if (ids.get(i).equals(fails)) {
                  throw new SQLException("the effect failed after its insert");
                }
              });
      assertThat(handled.get(0)).isEqualTo(new Handled.Done(Delivery.PROCESSED));
      assertThat(((Handled.Failed) handled.get(1)).failure()).isInstanceOf(SQLException.class);
      assertThat(((Handled.Failed) handled.get(2)).failure())
          .isInstanceOf(RequestInProgressException.class);
      assertThat(handled.get(3)).isEqualTo(new Handled.Done(Delivery.PROCESSED));
      assertThat(handled.get(4)).isEqualTo(handled.get(1));
      assertThat(handled.get(5)).isEqualTo(new Handled.Done(Delivery.DUPLICATE));
      assertThat(List.of(orders(ids.get(0)), orders(ids.get(3)))).containsOnly(1);
      assertThat(List.of(orders(fails), orders(busy))).containsOnly(0);
      assertThat(plain.find(busyKey).orElseThrow().state())
          .as("the other claim is left as it was")
          .isEqualTo(dev.idem.core.store.RecordState.IN_PROGRESS);
      assertThat(inbox.receiveEach(List.of(fails, ids.get(0)), placing(List.of(fails, ids.get(0)))))
          .containsExactly(
              new Handled.Done(Delivery.PROCESSED), new Handled.Done(Delivery.DUPLICATE));
      assertThat(orders(fails)).isEqualTo(1);
    }
  }

  @Test
  void aBatchThatGoesOnAsksNoRedeliveryOfAMessageWhoseStoredAnswerEveryDeliveryWouldMeet()
      throws Exception {
    String group = group();
    JdbcIdempotencyStore plain = new JdbcIdempotencyStore(ds, config.build());
    String failed = id("failed");
    String unstored = id("unstored");
    complete(plain, group, failed, Outcome.failure("refused".getBytes(StandardCharsets.UTF_8)));
    complete(plain, group, unstored, Outcome.unstored(new OutcomeTooLargeException(900, 100)));
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group)) {
      List<String> ids = List.of(id("a"), failed, unstored);
      List<Handled> handled = inbox.receiveEach(ids, placing(ids));

      assertThat(handled.get(0)).isEqualTo(new Handled.Done(Delivery.PROCESSED));
      Handled.Failed replayed = (Handled.Failed) handled.get(1);
      assertThat(replayed.failure()).isInstanceOf(ReplayedFailureException.class);
      assertThat(replayed.requeue()).isFalse();
      Handled.Failed notReplayable = (Handled.Failed) handled.get(2);
      assertThat(notReplayable.failure()).isInstanceOf(OutcomeNotReplayableException.class);
      assertThat(notReplayable.requeue()).as("every delivery would meet the same mark").isFalse();
      assertThat(List.of(orders(failed), orders(unstored))).containsOnly(0);
    }
  }

  private static void complete(
      JdbcIdempotencyStore store, String group, String id, Outcome outcome) {
    IdempotencyKey key = IdempotencyKey.of("consumer:" + group, id);
    ClaimResult.Claimed claimed =
        (ClaimResult.Claimed)
            now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofMinutes(1))));
    assertThat(now(store.complete(claimed.lease(), outcome, Duration.ofHours(1)))).isTrue();
  }

  @Test
  void aConsumersBatchThatGoesOnIsRefusedInATransactionTheStoreWritesIn() throws Exception {
    JdbcTransactions tx = new JdbcTransactions(ds);
    JdbcIdempotencyStore joined =
        new JdbcIdempotencyStore(
            ds, JdbcStoreConfig.custom(dialect()).joinTransactions(tx).build());
    try (Idempotency engine = Idempotency.builder(joined).build()) {
      IdempotentConsumer consumer = new IdempotentConsumer(engine, group());
      assertThatThrownBy(
              () ->
                  tx.inTransaction(
                      c -> consumer.processEach(List.of(id("j")), (i, ctx) -> {}, Deferral.NONE)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("receiveEach");
    }
  }

  @Test
  void aFailedStatementOfAHandlerLeavesTheBatchsTransactionUsableForTheMessagesBeforeIt()
      throws Exception {
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group())) {
      List<String> ids = List.of(id("0"), id("1"), id("2"));
      assertThatThrownBy(
              () ->
                  inbox.receiveAll(
                      ids,
                      (i, c) -> {
                        order(i, c, ids);
                        if (i == 1) {
                          insertWithoutPlacer(c); // a constraint fails: the statement fails
                        }
                      }))
          .isInstanceOf(SQLException.class);
      assertThat(orders(ids.get(0))).isEqualTo(1);
      assertThat(List.of(orders(ids.get(1)), orders(ids.get(2)))).containsOnly(0);
      assertThat(inbox.receiveAll(ids.subList(1, 3), placing(ids.subList(1, 3))))
          .containsOnly(Delivery.PROCESSED);
    }
  }

  @Test
  void aBatchThatCannotTakeBackAFailedMessageCommitsNothing() throws Exception {
    CountedStatements counted = new CountedStatements(ds);
    try (JdbcInbox inbox = new JdbcInbox(counted.dataSource(), config, group())) {
      List<String> ids = List.of(id("0"), id("1"), id("2"));
      counted.failNext("DELETE FROM idem_inbox");
      assertThatThrownBy(
              () ->
                  inbox.receiveAll(
                      ids,
                      (i, c) -> {
                        order(i, c, ids);
                        if (i == 1) {
                          throw new IllegalStateException("downstream timed out");
                        }
                      }))
          .isInstanceOf(IdempotencyStoreException.class);
      assertThat(List.of(orders(ids.get(0)), orders(ids.get(1)), orders(ids.get(2))))
          .containsOnly(0);
      assertThat(inbox.receiveAll(ids, placing(ids))).doesNotContain(Delivery.DUPLICATE);
      for (String id : ids) {
        assertThat(orders(id)).as(id).isEqualTo(1);
      }
    }
  }

  @Test
  void aBatchInATransactionThatRollsBackLeavesNoRowAndNoEffect() throws Exception {
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group())) {
      List<String> ids = List.of(id("0"), id("1"));
      assertThatThrownBy(
              () ->
                  inbox
                      .transactions()
                      .inTransaction(
                          outer -> {
                            inbox.receiveAll(ids, placing(ids));
                            throw new IllegalStateException("the caller's own work failed");
                          }))
          .isInstanceOf(IllegalStateException.class);
      assertThat(List.of(orders(ids.get(0)), orders(ids.get(1)))).containsOnly(0);
      assertThat(inbox.receiveAll(ids, placing(ids))).containsOnly(Delivery.PROCESSED);
    }
  }

  @Test
  void rowsOtherDeliveriesLeftAreAnsweredAsASingleDeliveryWouldAnswerThem() throws Exception {
    String group = group();
    IdempotencyKey expiredKey = IdempotencyKey.of("consumer:" + group, id("expired"));
    JdbcIdempotencyStore plain = new JdbcIdempotencyStore(ds, config.build());
    var claimed =
        (ClaimResult.Claimed)
            now(plain.claim(ClaimRequest.of(expiredKey, Fingerprint.NONE, Duration.ofMinutes(1))));
    now(
        plain.complete(
            claimed.lease(),
            Outcome.success(ResultCodec.none().encode(null)),
            Duration.ofMillis(1)));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> plain.find(expiredKey).isEmpty());
    String busy = id("busy");
    now(
        plain.claim(
            ClaimRequest.of(
                IdempotencyKey.of("consumer:" + group, busy),
                Fingerprint.NONE,
                Duration.ofMinutes(1))));
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group)) {
      String handled = id("handled");
      assertThat(inbox.receive(handled, c -> insertOrder(c, handled)))
          .isEqualTo(Delivery.PROCESSED);
      List<String> ids = List.of(handled, expiredKey.value(), id("new"), busy, id("after"));
      assertThatThrownBy(() -> inbox.receiveAll(ids, placing(ids)))
          .isInstanceOf(RequestInProgressException.class);
      assertThat(orders(handled)).isEqualTo(1);
      assertThat(orders(expiredKey.value())).isEqualTo(1);
      assertThat(orders(ids.get(2))).isEqualTo(1);
      assertThat(List.of(orders(busy), orders(ids.get(4)))).containsOnly(0);
      assertThat(inbox.receiveAll(ids.subList(4, 5), placing(ids.subList(4, 5))))
          .containsExactly(Delivery.PROCESSED);
    }
  }

  @Test
  void aMessageWithoutAnIdRefusesTheBatchBeforeAnyRowIsWritten() throws Exception {
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group())) {
      List<String> ids = List.of(id("0"), "");
      assertThatThrownBy(() -> inbox.receiveAll(ids, placing(ids)))
          .isInstanceOf(InvalidKeyException.class);
      assertThat(inbox.receiveAll(ids.subList(0, 1), placing(ids.subList(0, 1))))
          .containsExactly(Delivery.PROCESSED);
    }
  }

  @Test
  void batchesAndSingleDeliveriesOfTheSameMessagesAtOnceApplyEachOnce() throws Exception {
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group())) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        ids.add(id("m" + i));
      }
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        List<String> mine = new ArrayList<>(ids);
        Collections.shuffle(mine, new Random(t));
        boolean single = t == 5;
        runs.add(
            pool.submit(
                () -> {
                  go.await();
                  if (single) {
                    for (String id : mine) {
                      inbox.receive(id, c -> insertOrder(c, id));
                    }
                  } else {
                    inbox.receiveAll(mine, (i, c) -> order(i, c, mine));
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> run : runs) {
        run.get(120, TimeUnit.SECONDS);
      }
      for (String id : ids) {
        assertThat(orders(id)).as(id).isEqualTo(1);
      }
    }
  }

  // Whether the database writes a batch's rows in one insert (not H2).
  private boolean together() {
    return dialect().sql().insertIgnoringDuplicates("t", "", "") != null;
  }

  private String group() {
    return "g-" + UUID.randomUUID();
  }

  private String id(String name) {
    return scope.substring(scope.length() - 12) + "-" + name;
  }

  // The handler of the tests' batches: the order of the message at each index.
  private static JdbcInbox.BatchHandler<SQLException> placing(List<String> ids) {
    return (i, c) -> order(i, c, ids);
  }

  private static void order(int index, Connection c, List<String> ids) throws SQLException {
    insertOrder(c, ids.get(index));
  }

  private static void insertOrder(Connection c, String id) throws SQLException {
    JoinModeTests.insertOrder(c, IdempotencyKey.of("inbox-batch", id), "batch");
  }

  private static void insertWithoutPlacer(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO " + JoinModeTests.ORDERS + " (order_no, placed_by) VALUES (?, NULL)")) {
      ps.setString(1, UUID.randomUUID().toString());
      ps.executeUpdate();
    }
  }

  private int orders(String id) throws SQLException {
    try (Connection c = ds.getConnection()) {
      return JoinModeTests.orders(c, IdempotencyKey.of("inbox-batch", id));
    }
  }
}
