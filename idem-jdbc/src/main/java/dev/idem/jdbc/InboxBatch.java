package dev.idem.jdbc;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.core.consumer.IdempotentConsumer.Delivery;
import dev.idem.core.consumer.IdempotentConsumer.Handled;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.jdbc.internal.InboxRows;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One batch of {@link JdbcInbox#receiveAll} or {@link JdbcInbox#receiveEach}, inside the
 * transaction that writes the effects of its messages: their rows written together (one insert),
 * each handler run after a savepoint so that one that fails takes back only its own writes, and its
 * row deleted (with the rows of the messages after it, when a failure ends the batch), so that
 * their redelivery handles them.
 */
final class InboxBatch {

  /**
   * What a batch did: each message's answer up to where it ended (all of them when it went on past
   * failures), what its listener is to hear once the batch commits, and the failure that ended it.
   */
  record Ended(
      List<Handled> handled,
      List<Map.Entry<IdempotencyKey, ExecutionOutcome>> heard,
      @Nullable Exception failure) {}

  private final InboxRows rows;
  private final IdempotentConsumer consumer;
  private final Outcome processed;
  private final long retentionMs;

  InboxBatch(InboxRows rows, IdempotentConsumer consumer, Outcome processed) {
    this.rows = rows;
    this.consumer = consumer;
    this.processed = processed;
    this.retentionMs = Math.max(1, IdempotentConsumer.DEFAULT_CONFIG.retention().toMillis());
  }

  /**
   * Handles {@code messageIds} on {@code c}, in the list's order: until one handler throws, or,
   * with {@code goOn}, each message whatever the others do.
   *
   * @throws IdempotencyStoreException when the rows cannot be written, read or taken back: the
   *     caller rolls the whole transaction back
   */
  <E extends Exception> Ended run(
      Connection c, List<String> messageIds, JdbcInbox.BatchHandler<E> handler, boolean goOn) {
    List<IdempotencyKey> keys = new ArrayList<>(messageIds.size());
    Map<IdempotencyKey, Integer> firstAt = new LinkedHashMap<>();
    for (int i = 0; i < messageIds.size(); i++) {
      IdempotencyKey key = consumer.keyOf(messageIds.get(i));
      keys.add(key);
      firstAt.putIfAbsent(key, i);
    }
    String owner = "inbox:" + UUID.randomUUID();
    InboxRows.Rows found = write(c, firstAt.keySet(), owner);
    List<Handled> handled = new ArrayList<>(keys.size());
    List<Map.Entry<IdempotencyKey, ExecutionOutcome>> heard = new ArrayList<>();
    Map<IdempotencyKey, Handled.Failed> failed = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      IdempotencyKey key = keys.get(i);
      Handled.Failed failure = failed.get(key);
      if (failure != null) {
        handled.add(failure); // a later copy of a message that failed comes again with it
        continue;
      }
      if (Objects.requireNonNull(firstAt.get(key)) != i
          || (!found.written().contains(key.digest()) && done(found.met().get(key.digest())))) {
        heard.add(Map.entry(key, ExecutionOutcome.REPLAYED));
        handled.add(new Handled.Done(Delivery.DUPLICATE));
        continue;
      }
      Savepoint before = savepoint(c);
      try {
        Delivery delivery = one(c, key, messageIds.get(i), i, found, handler);
        if (found.written().contains(key.digest())) {
          heard.add(Map.entry(key, ExecutionOutcome.EXECUTED));
        }
        handled.add(new Handled.Done(delivery));
      } catch (Exception e) {
        int at = i;
        List<IdempotencyKey> back =
            goOn
                ? List.of(key)
                : firstAt.entrySet().stream()
                    .filter(first -> first.getValue() >= at)
                    .map(Map.Entry::getKey)
                    .toList();
        takeBack(c, before, back, found, owner);
        if (!goOn) {
          return new Ended(handled, heard, e);
        }
        // a stored answer replayed is the message's answer; anything else comes again
        failure = new Handled.Failed(e, !Handled.isStoredAnswer(e));
        failed.put(key, failure);
        handled.add(failure);
      }
    }
    return new Ended(handled, heard, null);
  }

  // The message at i: its row written by this batch, or left to the engine's claim.
  private <E extends Exception> Delivery one(
      Connection c,
      IdempotencyKey key,
      String messageId,
      int i,
      InboxRows.Rows found,
      JdbcInbox.BatchHandler<E> handler)
      throws E {
    if (found.written().contains(key.digest())) {
      handler.handle(i, c);
      return Delivery.PROCESSED;
    }
    // in progress under the engine's claim, expired, a stored failure: the engine's claim decides,
    // in this transaction (which waits for no other: a copy whose first runs is refused)
    return consumer.process(
        messageId,
        ctx -> {
          handler.handle(i, c);
          return null;
        });
  }

  // A message handled before: its row completed with a success.
  private static boolean done(@Nullable IdempotencyRecord record) {
    return record != null
        && record.state() == RecordState.COMPLETED
        && record.outcome() != null
        && record.outcome().kind() == Outcome.Kind.SUCCESS;
  }

  // Every key's row, in the order of their ids.
  private InboxRows.Rows write(Connection c, Collection<IdempotencyKey> distinct, String owner) {
    List<IdempotencyKey> sorted = new ArrayList<>(distinct);
    sorted.sort(Comparator.comparing(IdempotencyKey::digest));
    try {
      return rows.insertCompleted(c, sorted, processed, retentionMs, owner);
    } catch (SQLException e) {
      throw new IdempotencyStoreException(
          "cannot write the inbox rows of a batch: " + e.getMessage(), e);
    }
  }

  // Back to before the failed handler, and the rows this batch wrote for the messages first met
  // there or later deleted (a later copy of a message that ran before keeps its row).
  private void takeBack(
      Connection c,
      Savepoint before,
      List<IdempotencyKey> rest,
      InboxRows.Rows found,
      String owner) {
    try {
      c.rollback(before);
      List<IdempotencyKey> ours =
          rest.stream().filter(k -> found.written().contains(k.digest())).toList();
      if (!ours.isEmpty()) {
        rows.deleteWritten(c, ours, owner);
      }
    } catch (SQLException e) {
      throw new IdempotencyStoreException(
          "cannot take back a failed message of a batch: " + e.getMessage(), e);
    }
  }

  private static Savepoint savepoint(Connection c) {
    try {
      return c.setSavepoint();
    } catch (SQLException e) {
      throw new IdempotencyStoreException("cannot set a savepoint: " + e.getMessage(), e);
    }
  }
}
