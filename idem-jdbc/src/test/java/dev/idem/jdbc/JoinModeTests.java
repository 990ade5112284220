package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.ResultCodec;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.core.resume.Completer;
import dev.idem.core.resume.ResumableOperation;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.testsupport.ChildJvm;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Join mode on a real database: the record and the business rows commit or roll back together, and
 * a duplicate waits for the first transaction, then replays. Each database runs these through a
 * {@code @Nested} subclass.
 *
 * <p>Longer than 400 lines because every rule of join mode is checked here on one shared set-up (a
 * transaction, the store joining it, a business table); each test stands alone.
 */
abstract class JoinModeTests {

  static final String ORDERS = "idem_test_orders";

  protected abstract String url();

  protected abstract JdbcDialect dialect();

  /** Whether a child JVM can reach the same database (for the SIGKILL test). */
  protected boolean shared() {
    return true;
  }

  /**
   * The store the engine runs on: the JDBC store itself, or a decorator of it, which must keep it
   * writing in the caller's transaction.
   */
  protected IdempotencyStore decorate(JdbcIdempotencyStore store) {
    return store;
  }

  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final String scope = "join:" + UUID.randomUUID();
  private DataSource ds;
  private JdbcTransactions tx;
  private JdbcIdempotencyStore store;
  private Idempotency engine;
  private final AtomicInteger inProgressAnswers = new AtomicInteger();

  /** The policy of a duplicate that waits for the first: it asks again until this ends. */
  private static final IdempotencyConfig WAITING =
      IdempotencyConfig.custom().waitInProgress(Duration.ofSeconds(30)).build();

  @BeforeEach
  void setUp() throws SQLException {
    ds = Databases.pool(url());
    tx = new JdbcTransactions(ds);
    JdbcStoreConfig config = JdbcStoreConfig.custom(dialect()).joinTransactions(tx).build();
    JdbcSchema.createIfMissing(ds, config);
    store = new JdbcIdempotencyStore(ds, config);
    engine = Idempotency.builder(new CountingInProgress(decorate(store))).build();
    createOrdersTable(ds);
  }

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
    engine.close();
  }

  @Test
  void aRollbackLeavesNeitherTheBusinessRowNorTheRecord() throws SQLException {
    IdempotencyKey key = IdempotencyKey.of(scope, "k1");
    assertThatThrownBy(
            () ->
                tx.inTransaction(
                    c ->
                        engine
                            .call(key, Fingerprint.NONE)
                            .run(
                                ctx -> {
                                  insertOrder(c, key, "first");
                                  throw new IllegalStateException("crash after the insert");
                                })))
        .isInstanceOf(IllegalStateException.class);
    assertThat(orders(key)).isZero();
    assertThat(store.find(key)).isEmpty();
  }

  @Test
  void aStepsResultOutlivesTheTransactionThatRolledBackAndTheRetryDoesNotRunItAgain()
      throws SQLException {
    IdempotencyKey key = IdempotencyKey.of(scope, "k-step");
    AtomicInteger charges = new AtomicInteger();
    assertThatThrownBy(
            () ->
                tx.inTransaction(
                    c ->
                        engine
                            .call(key, Fingerprint.NONE)
                            .run(
                                ctx -> {
                                  insertOrder(c, key, "first");
                                  ctx.step("charge", step -> "charge-" + charges.incrementAndGet());
                                  throw new IllegalStateException("crash after the charge");
                                })))
        .isInstanceOf(IllegalStateException.class);
    assertThat(orders(key)).isZero();
    assertThat(store.find(key)).isEmpty();
    assertThat(store.find(key.step("charge"))).isPresent();

    String receipt =
        tx.inTransaction(
            c ->
                engine
                    .call(key, Fingerprint.NONE)
                    .run(
                        ctx -> {
                          insertOrder(c, key, "second");
                          return ctx.step("charge", step -> "charge-" + charges.incrementAndGet());
                        }));

    assertThat(receipt).isEqualTo("charge-1");
    assertThat(charges).as("one charge for two runs, the first rolled back").hasValue(1);
    assertThat(orders(key)).isEqualTo(1);
  }

  @Test
  void aResumableCallKeepsItsEntryUntilTheCompleterSeesItsAnswerCommittedOrRunsItAfterARollback()
      throws Exception {
    Completer completer = Completer.builder(engine, Databases.resumeLog(url(), dialect())).build();
    AtomicInteger runs = new AtomicInteger();
    IdempotencyConfig shortLease = IdempotencyConfig.custom().lease(Duration.ofMillis(300)).build();
    ResumableOperation<String, String> place =
        completer.register(
            scope,
            ResultCodec.utf8(),
            ResultCodec.utf8(),
            shortLease,
            (orderNo, ctx) ->
                tx.inTransaction(
                    c -> {
                      runs.incrementAndGet();
                      insertOrder(c, IdempotencyKey.of(scope, orderNo), "placed");
                      return "placed " + orderNo;
                    }));
    IdempotencyKey committed = place.key("committed");
    IdempotencyKey rolledBack = place.key("rolled-back");

    // the record is written in the caller's transaction, whose end this call cannot see
    tx.inTransaction(c -> place.execute("committed", "committed"));
    assertThatThrownBy(
            () ->
                tx.inTransaction(
                    c -> {
                      place.execute("rolled-back", "rolled-back");
                      throw new IllegalStateException("the caller failed after the call");
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(store.find(committed)).isPresent();
    assertThat(store.find(rolledBack)).isEmpty();
    Thread.sleep(450);

    Completer.Pass pass = completer.runOnce();

    assertThat(pass.replayed()).as("%s", pass).isEqualTo(1);
    assertThat(pass.finished()).as("%s", pass).isEqualTo(1);
    assertThat(runs).hasValue(3);
    assertThat(orders(committed)).isEqualTo(1);
    assertThat(orders(rolledBack)).isEqualTo(1);
    assertThat(completer.runOnce().taken()).isZero();
  }

  @Test
  void aFailureInATransactionThatCommitsIsStoredWithTheRowAndReplayed() throws Exception {
    IdempotencyKey key = IdempotencyKey.of(scope, "k-committed-failure");
    for (int call = 0; call < 3; call++) {
      Exception seen =
          tx.inTransaction(
              c -> {
                try {
                  engine
                      .call(key, Fingerprint.NONE)
                      .run(
                          ctx -> {
                            insertOrder(c, key, "first");
                            throw new IOException("reply lost after the insert");
                          });
                  return null;
                } catch (IOException | ReplayedFailureException e) {
                  return e; // the caller handles it; its transaction commits
                }
              });
      assertThat(seen)
          .isInstanceOf(call == 0 ? IOException.class : ReplayedFailureException.class)
          .hasMessage("reply lost after the insert");
    }
    assertThat(orders(key)).isEqualTo(1);
    assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @Test
  void aDuplicateOfAnOpenTransactionIsRefusedAtOnceRatherThanWaitingOnItsLock() throws Exception {
    // a duplicate that waited on the first's row lock held a pooled connection for as long as the
    // first ran, whatever the policy said: four of them took a pool of four from everyone else
    IdempotencyKey key = IdempotencyKey.of(scope, "k9");
    CountDownLatch finish = new CountDownLatch(1);
    Future<String> first = firstHeldOpen(key, finish);
    Future<String> duplicate = pool.submit(() -> order(key, "duplicate", () -> {}));
    assertThatThrownBy(() -> duplicate.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(RequestInProgressException.class);
    assertThat(first).isNotDone();
    finish.countDown();
    assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo("order-first");
    assertThat(order(key, "repeat", () -> {})).isEqualTo("order-first");
    assertThat(orders(key)).isEqualTo(1);
  }

  @Test
  void aDuplicateThatMayWaitAsksAgainUntilTheFirstTransactionEndsThenReplaysItsAnswer()
      throws Exception {
    IdempotencyKey key = IdempotencyKey.of(scope, "k2");
    CountDownLatch finish = new CountDownLatch(1);
    Future<String> first = firstHeldOpen(key, finish);
    CompletableFuture<String> duplicateSession = new CompletableFuture<>();
    int before = inProgressAnswers.get();
    Future<String> duplicate =
        pool.submit(
            () ->
                tx.inTransaction(
                    c -> {
                      duplicateSession.complete(sessionId(c));
                      return orderIn(c, key, "duplicate", () -> {}, WAITING);
                    }));
    String session = duplicateSession.get(20, TimeUnit.SECONDS);
    // told twice that the key is in progress while the first holds its transaction open: the
    // duplicate waits by asking again, never on the first's lock
    await("the duplicate asking again")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> inProgressAnswers.get() >= before + 2);
    assertThat(waitsOnALock(session)).isFalse();
    assertThat(duplicate).isNotDone();
    finish.countDown();
    assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo("order-first");
    assertThat(duplicate.get(20, TimeUnit.SECONDS)).isEqualTo("order-first");
    assertThat(orders(key)).isEqualTo(1);
  }

  /**
   * The first order of {@code key}, in a transaction held open after its insert until {@code
   * finish}; returns once the insert is done.
   */
  private Future<String> firstHeldOpen(IdempotencyKey key, CountDownLatch finish)
      throws InterruptedException {
    return firstHeldOpen(key, () -> assertThat(finish.await(20, TimeUnit.SECONDS)).isTrue());
  }

  /**
   * The first order of {@code key}, which runs {@code open} after its insert, in its transaction.
   */
  private Future<String> firstHeldOpen(IdempotencyKey key, Step open) throws InterruptedException {
    CountDownLatch inserted = new CountDownLatch(1);
    Future<String> first =
        pool.submit(
            () ->
                order(
                    key,
                    "first",
                    () -> {
                      inserted.countDown();
                      open.run();
                    }));
    assertThat(inserted.await(20, TimeUnit.SECONDS)).isTrue();
    return first;
  }

  /** The database's id of the session on {@code c}. */
  private String sessionId(Connection c) throws SQLException {
    String query =
        dialect() == JdbcDialect.postgresql()
            ? "SELECT pg_backend_pid()"
            : dialect() == JdbcDialect.h2() ? "SELECT SESSION_ID()" : "SELECT CONNECTION_ID()";
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * Whether the session {@code id} (from {@link #sessionId}) is waiting for a lock. H2 reports no
   * waits for row locks (its {@code BLOCKER_ID} is for table locks), so there it is whether the
   * session is inside its claim, an upsert that cannot end before the first transaction does.
   */
  private boolean waitsOnALock(String id) throws SQLException {
    String query =
        dialect() == JdbcDialect.postgresql()
            ? "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = CAST(? AS INTEGER)"
                + " AND wait_event_type = 'Lock'"
            : dialect() == JdbcDialect.h2()
                // blocked by another session's lock: a claim that merely runs is not waiting
                ? "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS"
                    + " WHERE SESSION_ID = CAST(? AS INTEGER)"
                    + " AND BLOCKER_ID IS NOT NULL"
                : "SELECT COUNT(*) FROM information_schema.innodb_trx"
                    + " WHERE trx_mysql_thread_id = CAST(? AS UNSIGNED)"
                    + " AND trx_state = 'LOCK WAIT'";
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(query)) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1) > 0;
      }
    }
  }

  @Test
  void aDuplicateOfARolledBackTransactionRunsTheWorkItself() throws Exception {
    IdempotencyKey key = IdempotencyKey.of(scope, "k3");
    CountDownLatch fail = new CountDownLatch(1);
    Future<String> first =
        firstHeldOpen(
            key,
            () -> {
              fail.await();
              throw new IllegalStateException("rolled back");
            });
    Future<String> duplicate = pool.submit(() -> order(key, "duplicate", () -> {}, WAITING));
    fail.countDown();
    assertThatThrownBy(() -> first.get(20, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThat(duplicate.get(20, TimeUnit.SECONDS)).isEqualTo("order-duplicate");
    assertThat(orders(key)).isEqualTo(1);
  }

  @Test
  void aDuplicateWhoseRepeatableReadSnapshotPredatesTheFirstCommitReplaysItsAnswer()
      throws Exception {
    assumeFalse(abortsOverAnOlderSnapshot(), "PostgreSQL aborts such a transaction instead");
    IdempotencyKey key = IdempotencyKey.of(scope, "k6");
    assertThat(duplicateOverASnapshotTakenBeforeTheFirstCommit(key).get(20, TimeUnit.SECONDS))
        .isEqualTo("order-first");
    assertThat(orders(key)).isEqualTo(1);
  }

  @Test
  void aDuplicateWhoseRepeatableReadSnapshotPredatesTheFirstCommitIsAbortedAndItsRetryReplays()
      throws Exception {
    assumeTrue(abortsOverAnOlderSnapshot(), "only PostgreSQL aborts such a transaction");
    IdempotencyKey key = IdempotencyKey.of(scope, "k7");
    assertThatThrownBy(() -> duplicateOverASnapshotTakenBeforeTheFirstCommit(key).get())
        .cause()
        .isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining("roll it back and run it again")
        .cause()
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("40001"));
    assertThat(order(key, "retry", () -> {})).isEqualTo("order-first");
    assertThat(orders(key)).isEqualTo(1);
  }

  @Test
  void aDuplicateHoldingARowTheFirstNeedsIsRefusedAtOnceSoTheTwoNeverDeadlock() throws Exception {
    // once the duplicate's claim waited on the first's lock while holding a row the first went on
    // to need: a deadlock that rolled back the duplicate's whole transaction
    IdempotencyKey key = IdempotencyKey.of(scope, "k8");
    String shared;
    try (Connection c = ds.getConnection()) {
      shared = insertOrder(c, IdempotencyKey.of(scope, "k8-shared"), "nobody");
    }
    CountDownLatch firstClaimed = new CountDownLatch(1);
    CountDownLatch sharedLocked = new CountDownLatch(1);
    Future<String> first =
        pool.submit(
            () ->
                tx.inTransaction(
                    c ->
                        engine
                            .call(key, Fingerprint.NONE)
                            .run(
                                ctx -> {
                                  insertOrder(c, key, "first");
                                  for (int i = 0; i < 8; i++) {
                                    insertOrder(c, IdempotencyKey.of(scope, "k8-ballast"), "first");
                                  }
                                  firstClaimed.countDown();
                                  assertThat(sharedLocked.await(20, TimeUnit.SECONDS)).isTrue();
                                  placeBy(c, shared, "first");
                                  return "order-first";
                                })));
    Future<String> duplicate =
        pool.submit(
            () ->
                tx.inTransaction(
                    c -> {
                      assertThat(firstClaimed.await(20, TimeUnit.SECONDS)).isTrue();
                      placeBy(c, shared, "duplicate");
                      sharedLocked.countDown();
                      return engine
                          .call(key, Fingerprint.NONE)
                          .run(
                              ctx -> {
                                insertOrder(c, key, "duplicate");
                                return "order-duplicate";
                              });
                    }));
    assertThatThrownBy(() -> duplicate.get(20, TimeUnit.SECONDS))
        .hasCauseInstanceOf(RequestInProgressException.class);
    assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo("order-first");
    assertThat(orders(key)).isEqualTo(1);
  }

  private static void placeBy(Connection c, String orderNo, String who) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE " + ORDERS + " SET placed_by = ? WHERE order_no = ?")) {
      ps.setString(1, who);
      ps.setString(2, orderNo);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  // PostgreSQL refuses, at REPEATABLE READ and above, to upsert over a row that its snapshot
  // cannot see (a serialization failure), so no statement of that transaction could replay it.
  private boolean abortsOverAnOlderSnapshot() {
    return dialect() == JdbcDialect.postgresql();
  }

  // The duplicate's transaction runs at REPEATABLE READ and reads before the first order runs, so
  // its snapshot is fixed; the first order commits before the duplicate claims.
  private Future<String> duplicateOverASnapshotTakenBeforeTheFirstCommit(IdempotencyKey key)
      throws Exception {
    CountDownLatch snapshotTaken = new CountDownLatch(1);
    CountDownLatch firstCommitted = new CountDownLatch(1);
    Future<String> duplicate =
        pool.submit(
            () ->
                tx.inTransaction(
                    c -> {
                      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                      assertThat(orders(c, key)).isZero();
                      snapshotTaken.countDown();
                      assertThat(firstCommitted.await(20, TimeUnit.SECONDS)).isTrue();
                      return engine
                          .call(key, Fingerprint.NONE)
                          .run(
                              ctx -> {
                                insertOrder(c, key, "duplicate");
                                return "order-duplicate";
                              });
                    }));
    assertThat(snapshotTaken.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(order(key, "first", () -> {})).isEqualTo("order-first");
    firstCommitted.countDown();
    return duplicate;
  }

  @Test
  void thirtyTwoConcurrentRequestsMakeOneRowAndGetOneAnswer() throws Exception {
    IdempotencyKey key = IdempotencyKey.of(scope, "k4");
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    List<Future<String>> answers = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      String who = "t" + i;
      answers.add(
          pool.submit(
              () -> {
                go.await();
                return order(key, who, runs::incrementAndGet, WAITING);
              }));
    }
    go.countDown();
    String first = answers.get(0).get(60, TimeUnit.SECONDS);
    for (Future<String> answer : answers) {
      assertThat(answer.get(60, TimeUnit.SECONDS)).isEqualTo(first);
    }
    assertThat(orders(key)).isEqualTo(1);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aProcessKilledMidTransactionLeavesNeitherRowNorRecord() throws Exception {
    assumeTrue(shared(), "database is private to this JVM");
    IdempotencyKey key = IdempotencyKey.of(scope, "k5");
    try (ChildJvm child =
        ChildJvm.start(JoinModeChild.class, url(), dialect().name(), key.scope(), key.value())) {
      child.awaitLine("inserted", Duration.ofSeconds(60));
      assertThat(child.kill()).isEqualTo(137);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "order-retry".equals(order(key, "retry", () -> {})));
    assertThat(orders(key)).isEqualTo(1);
  }

  @Test
  void anInboxAppliesAMessageDeliveredTwiceOnce() throws Exception {
    try (JdbcInbox inbox = inbox()) {
      String id = "msg-" + UUID.randomUUID();
      IdempotencyKey effect = IdempotencyKey.of(scope, id);
      assertThat(inbox.receive(id, c -> insertOrder(c, effect, "inbox")))
          .isEqualTo(IdempotentConsumer.Delivery.PROCESSED);
      assertThat(inbox.receive(id, c -> insertOrder(c, effect, "inbox")))
          .isEqualTo(IdempotentConsumer.Delivery.DUPLICATE);
      assertThat(orders(effect)).isEqualTo(1);
    }
  }

  @Test
  void anInboxTellsItsListenerHowEachDeliveryEnded() throws Exception {
    List<ExecutionOutcome> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();
    JdbcStoreConfig.Builder config = inboxTable();
    try (JdbcInbox inbox =
        new JdbcInbox(ds, config, "heard-" + scope, (key, outcome) -> outcomes.add(outcome))) {
      String id = "msg-" + UUID.randomUUID();
      IdempotencyKey effect = IdempotencyKey.of(scope, id);
      inbox.receive(id, c -> insertOrder(c, effect, "inbox"));
      inbox.receive(id, c -> insertOrder(c, effect, "inbox"));
    }
    assertThat(outcomes).containsExactly(ExecutionOutcome.EXECUTED, ExecutionOutcome.REPLAYED);
  }

  @Test
  void anInboxCommitsNothingWhenTheHandlerFails() throws Exception {
    try (JdbcInbox inbox = inbox()) {
      String id = "msg-" + UUID.randomUUID();
      IdempotencyKey effect = IdempotencyKey.of(scope, id);
      assertThatThrownBy(
              () ->
                  inbox.receive(
                      id,
                      c -> {
                        insertOrder(c, effect, "inbox");
                        throw new SQLException("constraint failed further on");
                      }))
          .isInstanceOf(SQLException.class);
      assertThat(orders(effect)).isZero();
      assertThat(inbox.receive(id, c -> insertOrder(c, effect, "redelivered")))
          .isEqualTo(IdempotentConsumer.Delivery.PROCESSED);
      assertThat(orders(effect)).isEqualTo(1);
    }
  }

  @Test
  void anInboxAppliesCopiesDeliveredAtOnceOnce() throws Exception {
    copiesAtOnceAreAppliedOnce(false);
  }

  @Test
  void anInboxCalledInAnOpenTransactionAppliesCopiesDeliveredAtOnceOnce() throws Exception {
    copiesAtOnceAreAppliedOnce(true);
  }

  private void copiesAtOnceAreAppliedOnce(boolean inOpenTransaction) throws Exception {
    try (JdbcInbox inbox = inbox()) {
      String id = "msg-" + UUID.randomUUID();
      IdempotencyKey effect = IdempotencyKey.of(scope, id);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<IdempotentConsumer.Delivery>> deliveries = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        deliveries.add(
            pool.submit(
                () -> {
                  go.await();
                  if (inOpenTransaction) {
                    return inbox
                        .transactions()
                        .inTransaction(
                            outer -> inbox.receive(id, c -> insertOrder(c, effect, "copy")));
                  }
                  return inbox.receive(id, c -> insertOrder(c, effect, "copy"));
                }));
      }
      go.countDown();
      int processed = 0;
      for (Future<IdempotentConsumer.Delivery> d : deliveries) {
        IdempotentConsumer.Delivery delivery;
        try {
          delivery = d.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          // in an open transaction a copy whose first is still running is refused rather than
          // waiting on it; the broker delivers it again (which may even come before the first
          // wrote its row: then this one applies it, and the first finds it done)
          assertThat(inOpenTransaction).isTrue();
          assertThat(e).hasCauseInstanceOf(RequestInProgressException.class);
          delivery = inbox.receive(id, c -> insertOrder(c, effect, "copy"));
        }
        processed += delivery == IdempotentConsumer.Delivery.PROCESSED ? 1 : 0;
      }
      assertThat(processed).isEqualTo(1);
      assertThat(orders(effect)).isEqualTo(1);
    }
  }

  @Test
  void anInboxWritesANewMessageInOneStatementAndAnswersACopyWithTwo() throws Exception {
    CountedStatements counted = new CountedStatements(ds);
    JdbcStoreConfig.Builder config = inboxTable();
    try (JdbcInbox inbox = new JdbcInbox(counted.dataSource(), config, "counted-" + scope)) {
      String id = "msg-" + UUID.randomUUID();
      IdempotencyKey effect = IdempotencyKey.of(scope, id);
      counted.take();
      inbox.receive(id, c -> insertOrder(c, effect, "inbox"));
      assertThat(counted.take()).as("the row, then the handler's insert").isEqualTo(2);
      assertThat(inbox.receive(id, c -> insertOrder(c, effect, "inbox")))
          .isEqualTo(IdempotentConsumer.Delivery.DUPLICATE);
      assertThat(counted.take()).as("the insert that met the row, then its read").isEqualTo(2);
    }
  }

  @Test
  void aMessageInProgressUnderTheEnginesClaimIsRefusedNotTakenForDone() throws Exception {
    JdbcStoreConfig.Builder config = inboxTable();
    JdbcIdempotencyStore plain = new JdbcIdempotencyStore(ds, config.build());
    String group = "busy-" + scope;
    String id = "msg-" + UUID.randomUUID();
    IdempotencyKey effect = IdempotencyKey.of(scope, id);
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group)) {
      now(
          plain.claim(
              ClaimRequest.of(
                  IdempotencyKey.of("consumer:" + group, id),
                  Fingerprint.NONE,
                  Duration.ofMinutes(1))));
      assertThatThrownBy(() -> inbox.receive(id, c -> insertOrder(c, effect, "inbox")))
          .isInstanceOf(RequestInProgressException.class);
      assertThat(orders(effect)).isZero();
    }
  }

  @Test
  void aMessageWhoseRowExpiredIsProcessedAgain() throws Exception {
    JdbcStoreConfig.Builder config = inboxTable();
    JdbcIdempotencyStore plain = new JdbcIdempotencyStore(ds, config.build());
    String group = "expired-" + scope;
    String id = "msg-" + UUID.randomUUID();
    IdempotencyKey key = IdempotencyKey.of("consumer:" + group, id);
    IdempotencyKey effect = IdempotencyKey.of(scope, id);
    var claimed =
        (ClaimResult.Claimed)
            now(plain.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofMinutes(1))));
    now(
        plain.complete(
            claimed.lease(),
            Outcome.success(ResultCodec.none().encode(null)),
            Duration.ofMillis(1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> plain.find(key).isEmpty());
    try (JdbcInbox inbox = new JdbcInbox(ds, config, group)) {
      assertThat(inbox.receive(id, c -> insertOrder(c, effect, "again")))
          .isEqualTo(IdempotentConsumer.Delivery.PROCESSED);
      assertThat(orders(effect)).isEqualTo(1);
    }
  }

  /** The inbox table's settings, the table created if missing. */
  private JdbcStoreConfig.Builder inboxTable() {
    JdbcStoreConfig.Builder config = JdbcStoreConfig.custom(dialect()).table("idem_inbox");
    JdbcSchema.createIfMissing(ds, config.build());
    return config;
  }

  private JdbcInbox inbox() {
    JdbcStoreConfig.Builder config = inboxTable();
    return new JdbcInbox(ds, config, "loyalty-" + scope);
  }

  interface Step {
    void run() throws Exception;
  }

  private String order(IdempotencyKey key, String who, Step during) throws Exception {
    return order(key, who, during, IdempotencyConfig.ofDefaults());
  }

  private String order(IdempotencyKey key, String who, Step during, IdempotencyConfig config)
      throws Exception {
    return tx.inTransaction(c -> orderIn(c, key, who, during, config));
  }

  /** {@link #order} in the caller's transaction on {@code c}. */
  private String orderIn(
      Connection c, IdempotencyKey key, String who, Step during, IdempotencyConfig config)
      throws Exception {
    return engine
        .call(key, Fingerprint.NONE)
        .config(config)
        .run(
            ctx -> {
              insertOrder(c, key, who);
              during.run();
              return "order-" + who;
            });
  }

  /** Counts the claims answered "in progress". */
  private final class CountingInProgress extends ForwardingIdempotencyStore {
    CountingInProgress(IdempotencyStore delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
      return super.claim(request)
          .thenApply(
              result -> {
                if (result instanceof ClaimResult.InProgress) {
                  inProgressAnswers.incrementAndGet();
                }
                return result;
              });
    }
  }

  /** Inserts an order for {@code key} and returns its number. */
  static String insertOrder(Connection c, IdempotencyKey key, String who) throws SQLException {
    String orderNo = key.scope() + "/" + key.value() + "/" + UUID.randomUUID();
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + ORDERS + " (order_no, placed_by) VALUES (?, ?)")) {
      ps.setString(1, orderNo);
      ps.setString(2, who);
      ps.executeUpdate();
    }
    return orderNo;
  }

  private int orders(IdempotencyKey key) throws SQLException {
    try (Connection c = ds.getConnection()) {
      return orders(c, key);
    }
  }

  static int orders(Connection c, IdempotencyKey key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT COUNT(*) FROM " + ORDERS + " WHERE order_no LIKE ?")) {
      ps.setString(1, key.scope() + "/" + key.value() + "/%");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  static void createOrdersTable(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + ORDERS
              + " (order_no VARCHAR(200) PRIMARY KEY, placed_by VARCHAR(64) NOT NULL)");
    }
  }
}
