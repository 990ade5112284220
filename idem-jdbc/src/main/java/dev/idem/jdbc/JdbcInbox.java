package dev.idem.jdbc;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.ResultCodec;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.core.consumer.IdempotentConsumer.Delivery;
import dev.idem.core.consumer.IdempotentConsumer.Handled;
import dev.idem.core.internal.AllListeners;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.jdbc.internal.InboxRows;
import java.sql.Connection;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * An inbox for message consumers (the article's question 4): the row that marks a message as
 * processed is written in the same transaction as the message's effect, so either both commit or
 * neither does. Acknowledge the message after {@link #receive} returns; if it throws, nothing was
 * committed and the redelivery is processed afresh. A copy delivered while another is being handled
 * waits for that transaction, then reports {@link Delivery#DUPLICATE}.
 *
 * <pre>{@code
 * try (JdbcInbox inbox = new JdbcInbox(dataSource, JdbcStoreConfig.custom(JdbcDialect.postgresql())
 *         .table("idem_inbox"), "loyalty")) {
 *   inbox.receive(message.id(), c -> addPoints(c, message));   // then ack
 * }
 * }</pre>
 */
public final class JdbcInbox implements AutoCloseable {

  /** The effect of one message, written on the inbox transaction's connection. */
  @FunctionalInterface
  public interface Handler<E extends Exception> {
    void handle(Connection connection) throws E;
  }

  /** The effect of the message at {@code index} of a batch, written on the batch's connection. */
  @FunctionalInterface
  public interface BatchHandler<E extends Exception> {
    void handle(int index, Connection connection) throws E;
  }

  // What the engine stores for a handler that ran: the fact alone.
  private static final Outcome PROCESSED = Outcome.success(ResultCodec.none().encode(null));

  private final JdbcTransactions transactions;
  private final JdbcIdempotencyStore store;
  private final Idempotency idempotency;
  private final IdempotentConsumer consumer;
  private final @Nullable IdempotencyListener listener;
  private final InboxBatch batch;

  /**
   * @param config the inbox table's settings (its own table, e.g. {@code idem_inbox}); join mode is
   *     set up here
   * @param consumerGroup names the consumer; each group processes a message once
   */
  public JdbcInbox(DataSource dataSource, JdbcStoreConfig.Builder config, String consumerGroup) {
    this(dataSource, config, consumerGroup, null);
  }

  /**
   * As {@link #JdbcInbox(DataSource, JdbcStoreConfig.Builder, String)}, telling {@code listener}
   * how each delivery ended ({@link dev.idem.core.ExecutionOutcome#EXECUTED} when the handler ran,
   * {@code REPLAYED} for a duplicate), for meters and tests.
   *
   * @param listener hears every delivery's outcome; null for none
   */
  public JdbcInbox(
      DataSource dataSource,
      JdbcStoreConfig.Builder config,
      String consumerGroup,
      @Nullable IdempotencyListener listener) {
    this.transactions = new JdbcTransactions(dataSource);
    JdbcStoreConfig joined = config.joinTransactions(transactions).build();
    this.store = new JdbcIdempotencyStore(dataSource, joined);
    // guarded as the engine guards it: a listener that throws is logged, the delivery goes on
    this.listener = listener == null ? null : new AllListeners(List.of(listener));
    Idempotency.Builder engine = Idempotency.builder(store);
    if (listener != null) {
      engine.listener(listener);
    }
    this.idempotency = engine.build();
    this.consumer = new IdempotentConsumer(idempotency, consumerGroup);
    this.batch =
        new InboxBatch(new InboxRows(joined.dialect().sql(), joined.table()), consumer, PROCESSED);
  }

  /**
   * Applies {@code handler} once for {@code messageId}, in one transaction with the inbox row.
   *
   * <p>A new message costs one statement besides the handler's: the row is written completed at
   * once, since the transaction shows it only with the handler's writes and takes it back if the
   * handler fails. A copy delivered meanwhile waits on that row until the transaction ends, then
   * reads it: a duplicate costs two statements. Any other row (in progress under the engine's
   * claim, expired, a stored failure) goes to that claim in a transaction of its own, which waits,
   * replays or takes it over. Called inside a transaction of {@link #transactions()} already open
   * on this thread, it goes to the claim at once, in that transaction, which waits for no other
   * transaction: a copy whose first is still running is refused with {@code
   * RequestInProgressException}, and the broker delivers it again.
   *
   * @return PROCESSED when the handler ran and committed now, DUPLICATE when it had before
   * @throws E whatever the handler throws; the transaction was rolled back
   */
  public <E extends Exception> Delivery receive(String messageId, Handler<E> handler) throws E {
    IdempotencyKey key = consumer.keyOf(messageId);
    // Inside a transaction already open on this thread the second one below would be the same.
    if (transactions.current() == null) {
      Delivery delivery =
          transactions.<@Nullable Delivery, E>inTransaction(c -> written(key, c, handler));
      if (delivery != null) {
        return delivery;
      }
    }
    // A transaction of its own: on MySQL and MariaDB the insert that found the row holds a shared
    // lock on it, and two copies that both hold one would deadlock upgrading it in the claim.
    return transactions.inTransaction(
        c ->
            consumer.process(
                messageId,
                ctx -> {
                  handler.handle(c);
                  return null;
                }));
  }

  /**
   * Applies {@code handler} once for each message of a batch, in the list's order, in one
   * transaction with their inbox rows: one commit for the batch, and one insert for the rows of all
   * its new messages (one a message on H2) and at most one read, where {@link #receive} costs a
   * commit and a statement a message. An id that comes twice in the list is one message: its later
   * copies are {@link Delivery#DUPLICATE}. A message whose row is neither absent nor completed goes
   * to the engine's claim in the batch's transaction, as {@link #receive} called in an open
   * transaction does.
   *
   * <p>Each handler runs after a savepoint. The first that throws ends the batch: its writes are
   * rolled back to that savepoint, the rows of the messages first met there or later are deleted,
   * the messages before it commit, and what it threw is thrown; redeliver the messages from it on
   * (the ones before it are then answered as duplicates). What the engine's claim of a message in
   * another state throws ({@code RequestInProgressException}, an aborted transaction) ends the
   * batch at that message in the same way. An {@link Error} rolls the whole batch back. A handler
   * must not commit, roll back or change the connection's auto-commit (nor, on MySQL and MariaDB,
   * run a statement that commits implicitly): the later messages' rows would commit before their
   * effects. On PostgreSQL each handler that writes is a subtransaction: a batch of more than 64
   * such messages makes other sessions' snapshots slower while it runs (the subtransaction cache
   * overflows), so keep batches at 64 or fewer where that matters.
   *
   * <p>A batch that meets a row another open transaction holds waits for that transaction to end,
   * as {@link #receive} does; batches write their new rows in the order of their ids, so they do
   * not deadlock on each other's new rows. On MySQL and MariaDB a batch may still be a deadlock's
   * victim (two batches claiming one row in another state, or waiting on a row whose transaction
   * rolled back): it then throws {@code IdempotencyStoreException} and nothing of it committed.
   * Called inside a transaction of {@link #transactions()} already open on this thread, the batch
   * runs in it and commits with it; the listener hears of a batch's messages once it commits (or,
   * in the caller's transaction, once the batch's part ends).
   *
   * @return what became of each message, in the list's order
   * @throws E what the first handler that threw threw, after the messages before it committed
   * @throws dev.idem.core.IdempotencyStoreException when the rows cannot be written, read or taken
   *     back, or the commit fails: nothing of the batch is known to have committed; redeliver it
   * @throws dev.idem.core.InvalidKeyException when a message has no id; nothing was written
   */
  public <E extends Exception> List<Delivery> receiveAll(
      List<String> messageIds, BatchHandler<E> handler) throws E {
    InboxBatch.Ended ended = run(messageIds, handler, false);
    Exception failure = ended.failure();
    if (failure == null) {
      return ended.handled().stream().map(h -> ((Handled.Done) h).delivery()).toList();
    }
    if (failure instanceof RuntimeException unchecked) {
      throw unchecked;
    }
    @SuppressWarnings("unchecked") // only the handler throws checked exceptions, of type E
    E thrown = (E) failure;
    throw thrown;
  }

  /**
   * As {@link #receiveAll}, except that a message whose handler throws (or whose row the engine's
   * claim refuses) does not end the batch: its own writes are rolled back to its savepoint, the row
   * this batch wrote for it is deleted, its answer is {@link Handled.Failed}, and the messages
   * after it are handled; the batch commits once at its end. For a broker that settles each message
   * (RabbitMQ): once the batch committed (when called inside a transaction of {@link
   * #transactions()}, once that one commits), requeue the failed ones that {@link
   * Handled.Failed#requeue ask for it} and acknowledge the rest. An {@link Error} rolls the whole
   * batch back.
   *
   * @return what became of each message, in the list's order
   * @throws dev.idem.core.IdempotencyStoreException when the rows cannot be written, read or taken
   *     back, or the commit fails: nothing of the batch is known to have committed; redeliver it
   * @throws dev.idem.core.InvalidKeyException when a message has no id; nothing was written
   */
  public List<Handled> receiveEach(List<String> messageIds, BatchHandler<?> handler) {
    return run(messageIds, handler, true).handled();
  }

  // A batch in its transaction (every id made a key before any row is written), its listener told
  // once the transaction committed.
  private InboxBatch.Ended run(List<String> messageIds, BatchHandler<?> handler, boolean goOn) {
    Objects.requireNonNull(handler, "handler");
    InboxBatch.Ended ended =
        transactions.inTransaction(c -> batch.run(c, messageIds, handler, goOn));
    ended.heard().forEach(told -> heard(told.getKey(), told.getValue()));
    return ended;
  }

  // The row written completed and the handler run, or a row completed by a handler found; null for
  // any other row (in progress, expired, a stored failure), which the engine's claim decides.
  private <E extends Exception> @Nullable Delivery written(
      IdempotencyKey key, Connection c, Handler<E> handler) throws E {
    if (store.insertCompleted(key, PROCESSED, IdempotentConsumer.DEFAULT_CONFIG.retention())) {
      handler.handle(c);
      heard(key, ExecutionOutcome.EXECUTED);
      return Delivery.PROCESSED;
    }
    if (store
        .find(key)
        .filter(r -> r.state() == RecordState.COMPLETED)
        .filter(r -> r.outcome() != null && r.outcome().kind() == Outcome.Kind.SUCCESS)
        .isPresent()) {
      heard(key, ExecutionOutcome.REPLAYED);
      return Delivery.DUPLICATE;
    }
    return null;
  }

  private void heard(IdempotencyKey key, ExecutionOutcome outcome) {
    if (listener != null) {
      listener.onOutcome(key, outcome);
    }
  }

  /** The transactions the inbox opens, for callers that want to add their own work to one. */
  public JdbcTransactions transactions() {
    return transactions;
  }

  @Override
  public void close() {
    idempotency.close();
  }
}
