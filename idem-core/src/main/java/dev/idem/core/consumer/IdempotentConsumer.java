package dev.idem.core.consumer;

import dev.idem.core.Deferral;
import dev.idem.core.Executed;
import dev.idem.core.ExecutionContext;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.LeaseLostException;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.PendingOutcome;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.ResultCodec;
import dev.idem.core.StoreFullException;
import dev.idem.core.Work;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Applies each message once per {@code (consumer group, message id)}, however often the broker
 * delivers it (the article's question 4), on the same engine and store as request keys.
 *
 * <p>Acknowledge the message after {@link #process} returns, whatever it returns: {@link
 * Delivery#DUPLICATE} means the effect already happened. If the handler throws, the key is released
 * and the exception propagates, so the message should be redelivered; when the handler runs in a
 * transaction that the store writes in (or that a deferral follows), that transaction decides
 * instead: committed, the failure is stored and the message counts as processed. A delivery that
 * arrives while another copy is being handled gets {@link dev.idem.core.RequestInProgressException}
 * (or waits, if the config says WAIT); requeue it.
 *
 * <p>This class knows no broker and no database; the AMQP adapter and the JDBC inbox (where the
 * dedup row commits with the effect) build on it.
 */
public final class IdempotentConsumer {

  /** How long processed message ids are remembered: 7 days, longer than brokers redeliver. */
  public static final IdempotencyConfig DEFAULT_CONFIG =
      IdempotencyConfig.custom().retention(java.time.Duration.ofDays(7)).build();

  private final Idempotency idempotency;
  private final String scope;
  private final IdempotencyConfig config;

  /** A consumer with {@link #DEFAULT_CONFIG}. */
  public IdempotentConsumer(Idempotency idempotency, String consumerGroup) {
    this(idempotency, consumerGroup, DEFAULT_CONFIG);
  }

  /**
   * @param consumerGroup names the consumer; two groups process the same message independently
   */
  public IdempotentConsumer(
      Idempotency idempotency, String consumerGroup, IdempotencyConfig config) {
    this.idempotency = Objects.requireNonNull(idempotency, "idempotency");
    if (consumerGroup == null || consumerGroup.isBlank()) {
      throw new IllegalArgumentException("consumer group must not be blank");
    }
    this.scope = "consumer:" + consumerGroup;
    this.config = Objects.requireNonNull(config, "config");
  }

  /** What became of one delivery. */
  public enum Delivery {
    /** The handler ran now. */
    PROCESSED,
    /** The message was processed before; the handler did not run. */
    DUPLICATE
  }

  /**
   * Runs {@code handler} unless {@code messageId} was processed before by this group.
   *
   * @throws InvalidKeyException when the message has no id
   * @throws E whatever the handler throws (the message was not processed)
   */
  public <E extends Exception> Delivery process(String messageId, Work<@Nullable Void, E> handler)
      throws E {
    return process(messageId, Fingerprint.NONE, handler);
  }

  /**
   * As {@link #process(String, Work)}, and refuses with {@link dev.idem.core.KeyReuseException} a
   * message whose id was seen with another {@code fingerprint} (a producer reusing ids).
   */
  public <E extends Exception> Delivery process(
      String messageId, Fingerprint fingerprint, Work<@Nullable Void, E> handler) throws E {
    return process(messageId, fingerprint, handler, Deferral.NONE);
  }

  /**
   * As {@link #process(String, Fingerprint, Work)}, with the outcome of a handler that ran handed
   * to {@code deferral} instead of the store, for a caller whose transaction decides it (see {@link
   * dev.idem.core.IdempotentCall#deferTo}).
   *
   * @param deferral receives the held outcome, or {@link Deferral#NONE} to store it at once
   */
  public <E extends Exception> Delivery process(
      String messageId, Fingerprint fingerprint, Work<@Nullable Void, E> handler, Deferral deferral)
      throws E {
    IdempotencyKey key = keyOf(messageId);
    Executed<@Nullable Void> executed =
        idempotency
            .call(key, fingerprint)
            .codec(ResultCodec.none())
            .config(config)
            .deferTo(deferral)
            .runWithStatus(handler);
    return executed.replayed() ? Delivery.DUPLICATE : Delivery.PROCESSED;
  }

  /** A handler of one message of a batch. */
  @FunctionalInterface
  public interface BatchHandler<E extends Exception> {
    /**
     * Handles the message at {@code index} of the batch.
     *
     * @param context the running work's context of that message's claim (its key, fence, steps)
     */
    void handle(int index, ExecutionContext context) throws E;
  }

  /** {@link #processAll(List, BatchHandler, Deferral)} with each outcome stored at once. */
  public <E extends Exception> List<Delivery> processAll(
      List<String> messageIds, BatchHandler<E> handler) throws E {
    return processAll(messageIds, handler, Deferral.NONE);
  }

  /**
   * Processes a batch of messages as {@link #process(String, Fingerprint, Work, Deferral)}
   * processes one, message after message in the list's order, with the claims of all their ids sent
   * together: one round trip to the store for the batch rather than one per message (on Redis; a
   * store that cannot claim several keys at once claims them one by one). Every other rule is the
   * single message's, for each message alone. An id that comes twice in the list is one message:
   * its first copy is handled and the later ones are {@link Delivery#DUPLICATE}.
   *
   * <p>The first handler that throws ends the batch, as a loop over {@link #process} would end: the
   * messages before it stay processed, its own id is released (or held, with a deferral), and the
   * ids after it are given back unhandled, so that their redelivery handles them.
   *
   * @param deferral receives each held outcome, or {@link Deferral#NONE} to store them at once
   * @return what became of each message, in the list's order
   * @throws InvalidKeyException when a message has no id; nothing was claimed
   * @throws E what the first handler that threw threw
   */
  public <E extends Exception> List<Delivery> processAll(
      List<String> messageIds, BatchHandler<E> handler, Deferral deferral) throws E {
    Objects.requireNonNull(handler, "handler");
    Batch batch = batch(messageIds);
    List<Executed<@Nullable Void>> executed =
        idempotency.executeEach(
            batch.calls(), ResultCodec.none(), batch.work(handler), config, deferral);
    Map<IdempotencyKey, Boolean> replayed = new HashMap<>();
    int at = 0;
    for (IdempotencyKey key : batch.calls().keySet()) {
      replayed.put(key, executed.get(at++).replayed());
    }
    List<Delivery> deliveries = new ArrayList<>(batch.keys().size());
    for (int i = 0; i < batch.keys().size(); i++) {
      deliveries.add(batch.delivery(i, Objects.requireNonNull(replayed.get(batch.keys().get(i)))));
    }
    return deliveries;
  }

  /**
   * A batch's messages: each one's key, in the list's order, and the calls to run, one per distinct
   * key, at its first place.
   */
  private record Batch(
      List<IdempotencyKey> keys,
      Map<IdempotencyKey, Integer> firstAt,
      Map<IdempotencyKey, Fingerprint> calls) {

    int indexOf(IdempotencyKey key) {
      return Objects.requireNonNull(firstAt.get(key));
    }

    // The work of each call: the handler of its key's first place.
    <E extends Exception> Work<@Nullable Void, E> work(BatchHandler<E> handler) {
      return context -> {
        handler.handle(indexOf(context.key()), context);
        return null;
      };
    }

    // PROCESSED for the first place of a key whose call ran its handler now; else DUPLICATE
    Delivery delivery(int place, boolean replayed) {
      return indexOf(keys.get(place)) == place && !replayed
          ? Delivery.PROCESSED
          : Delivery.DUPLICATE;
    }
  }

  private Batch batch(List<String> messageIds) {
    List<IdempotencyKey> keys = new ArrayList<>(messageIds.size());
    Map<IdempotencyKey, Integer> firstAt = new HashMap<>();
    Map<IdempotencyKey, Fingerprint> calls = new LinkedHashMap<>();
    for (int i = 0; i < messageIds.size(); i++) {
      IdempotencyKey key = keyOf(messageIds.get(i));
      keys.add(key);
      if (firstAt.putIfAbsent(key, i) == null) {
        calls.put(key, Fingerprint.NONE);
      }
    }
    return new Batch(keys, firstAt, calls);
  }

  /** What became of one message of {@link #processEach}. */
  public sealed interface Handled permits Handled.Done, Handled.Failed {

    /** Handled: its handler ran now ({@link Delivery#PROCESSED}), or before. */
    record Done(Delivery delivery) implements Handled {}

    /**
     * Not handled as asked: what its handler or its claim threw.
     *
     * @param requeue true when the message is to come again: its key was given back (a failure the
     *     config retries, a copy handled elsewhere right now, a store that failed or is full: the
     *     config's {@code terminalWhen} judges only what the handler threw), or, for a {@link
     *     dev.idem.core.LeaseLostException}, its handler ran but its answer could not be stored, so
     *     its effect may have happened; false when the failure is the message's answer (terminal,
     *     as the config classifies it, or a stored one replayed): acknowledge it, or send it to the
     *     dead letters, since every redelivery would answer the same
     */
    record Failed(Exception failure, boolean requeue) implements Handled {}

    /**
     * Whether {@code failure} is the answer stored for a message, replayed: a stored failure, or
     * the mark of an answer too large to store. Every redelivery would meet it again, so a batch
     * that goes on asks for none.
     */
    static boolean isStoredAnswer(Exception failure) {
      return failure instanceof ReplayedFailureException
          || failure instanceof OutcomeNotReplayableException;
    }
  }

  /**
   * As {@link #processAll(List, BatchHandler, Deferral)}, except that a message that fails does not
   * end the batch: its handler's failure, or its claim's refusal, is its own answer ({@link
   * Handled.Failed}), and the messages after it are handled. For a broker that settles each message
   * (RabbitMQ): requeue the failed ones {@link Handled.Failed#requeue that ask for it} and
   * acknowledge the rest. An {@link Error} ends the batch, its later keys given back.
   *
   * <p>A message whose failure the config retries has its key given back at once, deferral or not:
   * the caller must take back that handler's own writes (a savepoint of its transaction) before the
   * transaction commits. The deferral receives the outcomes of the other messages, a terminal
   * failure included. Refused with {@link IllegalStateException} in a transaction the store writes
   * in (join mode), where a failed message's claim would commit with the others; the JDBC inbox's
   * {@code receiveEach} is the batch for that case.
   *
   * @param deferral receives each held outcome, or {@link Deferral#NONE} to store them at once
   * @return what became of each message, in the list's order
   * @throws InvalidKeyException when a message has no id; nothing was claimed
   * @throws RuntimeException what the deferral threw, after every other outcome was handed to it
   *     (the outcome it refused was given back): redeliver the batch
   */
  public List<Handled> processEach(
      List<String> messageIds, BatchHandler<? extends Exception> handler, Deferral deferral) {
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(deferral, "deferral");
    Batch batch = batch(messageIds);
    Map<IdempotencyKey, Exception> failures = new HashMap<>();
    Map<IdempotencyKey, PendingOutcome> held = new HashMap<>();
    Map<IdempotencyKey, Executed<@Nullable Void>> executed;
    try {
      executed =
          idempotency.executeEach(
              batch.calls(),
              ResultCodec.none(),
              batch.work(handler),
              config,
              deferral.holds() ? pending -> held.put(pending.key(), pending) : Deferral.NONE,
              failures::putIfAbsent);
    } catch (RuntimeException | Error e) {
      // an Error ended the batch: no outcome held here is left to a watchdog that renews it
      held.values().forEach(PendingOutcome::release);
      throw e;
    }
    RuntimeException refused = null;
    for (IdempotencyKey key : batch.calls().keySet()) {
      PendingOutcome pending = held.get(key);
      Exception failure = failures.get(key);
      if (pending == null) {
        continue;
      }
      if (failure != null && again(failure)) {
        pending.release();
        continue;
      }
      try {
        deferral.hold(pending);
      } catch (RuntimeException e) {
        // as for one message: a deferral that throws frees the key, and what it threw is thrown
        pending.release();
        refused = refused == null ? e : refused;
      }
    }
    if (refused != null) {
      throw refused;
    }
    List<Handled> handled = new ArrayList<>(batch.keys().size());
    for (int i = 0; i < batch.keys().size(); i++) {
      IdempotencyKey key = batch.keys().get(i);
      Exception failure = failures.get(key);
      // a later copy of a message that failed fails with it, and comes again with it
      handled.add(
          failure != null
              ? new Handled.Failed(failure, again(failure))
              : new Handled.Done(
                  batch.delivery(i, Objects.requireNonNull(executed.get(key)).replayed())));
    }
    return handled;
  }

  // Whether a message that failed so is to come again: not when the failure is its answer. The
  // config's classifier judges what a handler threw; the refusals of a claim (a copy in flight, a
  // store that failed or is full, an answer that could not be stored) pass with time, whatever it
  // would call them, and a stored answer never does.
  private boolean again(Exception failure) {
    if (Handled.isStoredAnswer(failure)) {
      return false;
    }
    if (failure instanceof RequestInProgressException
        || failure instanceof IdempotencyStoreException
        || failure instanceof StoreFullException
        || failure instanceof LeaseLostException) {
      return true;
    }
    try {
      return !config.isTerminal(failure);
    } catch (RuntimeException classifierFailed) {
      return true; // the engine treats it as retryable too
    }
  }

  /**
   * The key for a message id: the id itself when it is a valid key value, otherwise {@code
   * "sha256:"} and the hex digest of its UTF-8 bytes (broker ids may be long or non-ASCII).
   */
  public IdempotencyKey keyOf(String messageId) {
    if (messageId == null || messageId.isEmpty()) {
      throw InvalidKeyException.missing("message has no id");
    }
    if (IdempotencyKey.isValidValue(messageId) && !messageId.startsWith("sha256:")) {
      return IdempotencyKey.of(scope, messageId);
    }
    return IdempotencyKey.of(scope, "sha256:" + sha256Hex(messageId));
  }

  private static String sha256Hex(String text) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
