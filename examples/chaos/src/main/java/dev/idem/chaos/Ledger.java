package dev.idem.chaos;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the tool sent and what it got back: every key with its completed answers, the callbacks, the
 * retries and the server errors, and the faults with their times. {@link Verdict} compares it with
 * what the shop says afterwards. Safe for the virtual users to write concurrently.
 */
public final class Ledger {

  /**
   * A key and the answers it completed with.
   *
   * @param operation order or payment
   * @param user the shop user who sent it (keys are scoped per user)
   * @param key the {@code Idempotency-Key}
   * @param orderNo for an order, the number the shop derives from user and key; for a payment, the
   *     order paid
   * @param answers completed answers (not 409 in progress, not 5xx or 429, not connection errors),
   *     in the order they arrived
   */
  public record KeyRecord(
      Operation operation, String user, String key, String orderNo, List<Answer> answers) {}

  /**
   * The shop's answer to a callback the tool sent.
   *
   * @param paymentNo the payment called back about
   * @param answer the answer ({@code {"paymentNo", "status"}} on 200)
   */
  public record Callback(String paymentNo, Answer answer) {}

  /**
   * A 5xx from a shop that was up.
   *
   * @param operation what was sent
   * @param answer the answer
   */
  public record ServerError(Operation operation, Answer answer) {}

  private final Map<String, KeyRecord> keys = new ConcurrentHashMap<>();
  private final List<Callback> callbacks = new CopyOnWriteArrayList<>();
  private final List<ServerError> serverErrors = new CopyOnWriteArrayList<>();
  private final List<FaultMark> faults = new CopyOnWriteArrayList<>();
  private final LongAdder requests = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder connectionErrors = new LongAdder();
  private final LongAdder inProgress = new LongAdder();
  private final LongAdder gatewayTimeouts = new LongAdder();
  private final LongAdder walletBusy = new LongAdder();
  private final LongAdder abandoned = new LongAdder();

  /** Registers a key before its first request goes out. */
  public void key(Operation operation, String user, String key, String orderNo) {
    keys.putIfAbsent(
        user + "\n" + key,
        new KeyRecord(operation, user, key, orderNo, new CopyOnWriteArrayList<>()));
  }

  /** A completed answer for a registered key. */
  public void completed(String user, String key, Answer answer) {
    KeyRecord record = keys.get(user + "\n" + key);
    if (record == null) {
      throw new IllegalStateException("key not registered: " + key);
    }
    record.answers().add(answer);
  }

  /** The answer to a callback. */
  public void callback(String paymentNo, Answer answer) {
    callbacks.add(new Callback(paymentNo, answer));
  }

  /**
   * A 5xx from a shop that answered (504 gateway timeouts and 503 wallet-busy are counted apart).
   */
  public void serverError(Operation operation, Answer answer) {
    serverErrors.add(new ServerError(operation, answer));
  }

  /** A fault or event, for explanations and charts. */
  public void fault(FaultMark mark) {
    faults.add(mark);
  }

  /** One HTTP request sent (every attempt counts). */
  public void request() {
    requests.increment();
  }

  /** A copy of a request sent on purpose with a key already used. */
  public void duplicate() {
    duplicates.increment();
  }

  /** No answer: the connection was refused, cut or timed out. */
  public void connectionError() {
    connectionErrors.increment();
  }

  /** A 409 {@code in-progress}: another request with the key was still running. */
  public void inProgress() {
    inProgress.increment();
  }

  /** A 504 {@code gateway-timeout}: the shop did not learn the card's outcome in time. */
  public void gatewayTimeout() {
    gatewayTimeouts.increment();
  }

  /** A 503 {@code wallet-busy}: a hot-account wallet mode could not take the debit in time. */
  public void walletBusy() {
    walletBusy.increment();
  }

  /** An operation given up without a completed answer (retries exhausted). */
  public void abandoned() {
    abandoned.increment();
  }

  public Collection<KeyRecord> keys() {
    return List.copyOf(keys.values());
  }

  public List<Callback> callbacks() {
    return List.copyOf(callbacks);
  }

  public List<ServerError> serverErrors() {
    return List.copyOf(serverErrors);
  }

  public List<FaultMark> faults() {
    return new ArrayList<>(faults);
  }

  public long requests() {
    return requests.sum();
  }

  public long duplicates() {
    return duplicates.sum();
  }

  public long connectionErrors() {
    return connectionErrors.sum();
  }

  public long inProgressAnswers() {
    return inProgress.sum();
  }

  public long walletBusyAnswers() {
    return walletBusy.sum();
  }

  public long gatewayTimeouts() {
    return gatewayTimeouts.sum();
  }

  public long abandonedOperations() {
    return abandoned.sum();
  }
}
