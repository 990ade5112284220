package dev.idem.core.hot;

import dev.idem.core.hot.internal.Lane;
import dev.idem.core.internal.Durations;
import java.math.BigDecimal;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Deducts from hot accounts without races: per account, callers queue, and one of them at a time
 * (the leader) applies what is queued through the {@link HotAccountStore}: everything, up to {@link
 * HotAccountConfig#maxBatchSize()}, as one batch when {@link HotAccountConfig.Mode#COALESCE
 * coalescing}, or one deduction at a time when {@link HotAccountConfig.Mode#SERIALIZE serializing}.
 * The caller blocks until its own deduction is answered; the lead then passes to the next caller in
 * line, so no caller applies more than one batch and no thread is started or kept per account.
 *
 * <p>When coalescing, the first caller of an idle account waits up to {@link
 * HotAccountConfig#gatherWait()} for as many callers as the account's last batch held, so that
 * callers answered together and coming back together go to the store together again.
 *
 * <pre>{@code
 * HotAccountExecutor<Long> wallet = new HotAccountExecutor<>(store, HotAccountConfig.ofDefaults());
 * switch (wallet.deduct(accountId, order.number(), order.amount())) {
 *   case APPLIED, DUPLICATE -> markPaid(order);
 *   case INSUFFICIENT_FUNDS, UNKNOWN_ACCOUNT -> refuse(order);
 * }
 * }</pre>
 *
 * <p>The queue is in-process: other executors, in this process or others, may apply deductions to
 * the same account at the same time, and the store keeps them all correct (it locks the account for
 * each batch and records each request id once). Coalescing only makes the store's work cheaper.
 * Thread-safe.
 *
 * @param <K> the account id type; needs value equality
 */
public final class HotAccountExecutor<K> {

  private final HotAccountStore<K> store;
  private final HotAccountConfig config;
  private final ConcurrentMap<K, Lane<K>> lanes = new ConcurrentHashMap<>();
  // The last batch size of recently idle accounts, a few slots picked by hash: bounded, and an
  // account whose slot another took over only loses its gather wait.
  private final AtomicReferenceArray<LastBatch<K>> lastBatches =
      new AtomicReferenceArray<>(LAST_BATCH_SLOTS);

  private static final int LAST_BATCH_SLOTS = 64;

  private record LastBatch<K>(K account, int size) {}

  public HotAccountExecutor(HotAccountStore<K> store, HotAccountConfig config) {
    this.store = Objects.requireNonNull(store, "store");
    this.config = Objects.requireNonNull(config, "config");
  }

  /** As {@link #deduct(Object, Deduction)}. */
  public DeductionResult deduct(K account, String requestId, BigDecimal amount) {
    return deduct(account, new Deduction(requestId, amount));
  }

  /**
   * Deducts once from {@code account} and waits for the answer, applying a batch for the callers
   * queued with it if it is this caller's turn.
   *
   * @return the store's answer for this deduction
   * @throws HotAccountQueueFullException when the account's queue is full (nothing queued)
   * @throws DeductionAbandonedException when the wait ran out or was interrupted
   * @throws DeductionFailedException when the store failed the batch (nothing of it applied)
   */
  public DeductionResult deduct(K account, Deduction deduction) {
    Objects.requireNonNull(account, "account");
    Objects.requireNonNull(deduction, "deduction");
    long waitNanos = Durations.toNanosSaturated(config.maxWait());
    while (true) {
      Lane<K> lane = lanes.computeIfAbsent(account, this::newLane);
      DeductionResult result = lane.deduct(deduction, config.maxQueueSize(), waitNanos);
      if (result != null) {
        return result;
      }
      // The lane closed between lookup and queueing; it has left the map, so take a fresh one.
    }
  }

  /** How many deductions wait on {@code account}, not counting a batch being applied. */
  public int queued(K account) {
    Lane<K> lane = lanes.get(account);
    return lane == null ? 0 : lane.queued();
  }

  /** How many accounts have deductions queued or being applied; idle accounts hold nothing. */
  public int activeAccounts() {
    return lanes.size();
  }

  /** The settings. */
  public HotAccountConfig config() {
    return config;
  }

  private Lane<K> newLane(K account) {
    LastBatch<K> last = lastBatches.get(slot(account));
    int expected = last != null && last.account().equals(account) ? last.size() : 1;
    return new Lane<>(
        account,
        store,
        config.maxBatchSize(),
        expected,
        Durations.toNanosSaturated(config.gatherWait()),
        lane -> {
          lanes.remove(account, lane);
          remember(account, lane.lastBatch());
        });
  }

  private void remember(K account, int size) {
    int slot = slot(account);
    if (size > 1) {
      lastBatches.set(slot, new LastBatch<>(account, size));
    } else {
      LastBatch<K> last = lastBatches.get(slot);
      if (last != null && last.account().equals(account)) {
        lastBatches.compareAndSet(slot, last, null);
      }
    }
  }

  private static int slot(Object account) {
    int h = account.hashCode();
    return (h ^ (h >>> 16)) & (LAST_BATCH_SLOTS - 1);
  }
}
