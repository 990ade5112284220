package dev.idem.jdbc;

import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.core.consumer.IdempotentConsumer.Delivery;
import java.sql.Connection;
import javax.sql.DataSource;

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

  private final JdbcTransactions transactions;
  private final Idempotency idempotency;
  private final IdempotentConsumer consumer;

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
      IdempotencyListener listener) {
    this.transactions = new JdbcTransactions(dataSource);
    JdbcIdempotencyStore store =
        new JdbcIdempotencyStore(dataSource, config.joinTransactions(transactions).build());
    Idempotency.Builder engine = Idempotency.builder(store);
    if (listener != null) {
      engine.listener(listener);
    }
    this.idempotency = engine.build();
    this.consumer = new IdempotentConsumer(idempotency, consumerGroup);
  }

  /**
   * Applies {@code handler} once for {@code messageId}, in one transaction with the inbox row.
   *
   * @return PROCESSED when the handler ran and committed now, DUPLICATE when it had before
   * @throws E whatever the handler throws; the transaction was rolled back
   */
  public <E extends Exception> Delivery receive(String messageId, Handler<E> handler) throws E {
    return transactions.inTransaction(
        c ->
            consumer.process(
                messageId,
                ctx -> {
                  handler.handle(c);
                  return null;
                }));
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
