package dev.idem.core.internal;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.RecordChangeNotifier;
import dev.idem.core.store.StoreCapability;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Lets a duplicate in WAIT mode sleep until the first request with its key finishes.
 *
 * <p>A waiter wakes on the first of: a local signal (the first request ran in this engine), the
 * store's change notice (when it has {@link StoreCapability#CHANGE_NOTIFICATION}), or a time slice,
 * after which it claims again. The slice is short and jittered when the store sends no notices, and
 * a quarter of the lease when it does (a lease that runs out sends no notice). It never spins.
 */
public final class DuplicateWaiter {

  private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private final ConcurrentMap<IdempotencyKey, Set<CompletableFuture<@Nullable Void>>> local =
      new ConcurrentHashMap<>();
  private final @Nullable RecordChangeNotifier notifier;

  public DuplicateWaiter(IdempotencyStore store) {
    boolean notifies = store.capabilities().contains(StoreCapability.CHANGE_NOTIFICATION);
    this.notifier = notifies ? store : null;
  }

  /** Wakes every local waiter of {@code key}; called after completing or releasing it. */
  public void signal(IdempotencyKey key) {
    Set<CompletableFuture<@Nullable Void>> waiters = local.remove(key);
    if (waiters != null) {
      waiters.forEach(f -> f.complete(null));
    }
  }

  /**
   * Registers interest in the next change of {@code key}. Call before claiming, so that a change
   * between the claim and the wait is not missed.
   */
  public Ticket subscribe(IdempotencyKey key, Duration lease) {
    CompletableFuture<@Nullable Void> woken = new CompletableFuture<>();
    // The add happens inside the compute, so it cannot land in a set that signal has just taken
    // or that a leaving waiter has just dropped.
    local.compute(
        key,
        (IdempotencyKey k, @Nullable Set<CompletableFuture<@Nullable Void>> set) -> {
          Set<CompletableFuture<@Nullable Void>> next = set;
          if (next == null) {
            next = ConcurrentHashMap.newKeySet();
          }
          next.add(woken);
          return next;
        });
    RecordChangeNotifier.Subscription storeSub =
        notifier == null ? () -> {} : notifier.onChange(key, () -> woken.complete(null));
    RecordChangeNotifier.Subscription sub =
        () -> {
          storeSub.close();
          local.computeIfPresent(
              key,
              (k, set) -> {
                set.remove(woken);
                return set.isEmpty() ? null : set;
              });
        };
    long slice = notifier == null ? -1 : Math.max(MIN_BACKOFF_NANOS, lease.toNanos() / 4);
    return new Ticket(woken, sub, slice);
  }

  /** One registered waiter; close it when done. */
  public static final class Ticket implements AutoCloseable {
    private final CompletableFuture<@Nullable Void> woken;
    private final RecordChangeNotifier.Subscription subscription;
    private final long sliceNanos;

    private Ticket(
        CompletableFuture<@Nullable Void> woken,
        RecordChangeNotifier.Subscription sub,
        long sliceNanos) {
      this.woken = woken;
      this.subscription = sub;
      this.sliceNanos = sliceNanos;
    }

    /**
     * A wait that holds no thread: the stage completes when woken or after one slice, never later
     * than {@code remainingNanos}, on the thread that wakes it or a timer's; then the caller claims
     * again.
     *
     * @param round how many times this caller has waited already; backoff grows with it
     *     <p>The slice's timer is left to run out rather than cancelled when the waiter is woken
     *     (it then completes nothing): the store's notice may wake it on the client's I/O thread,
     *     and the JDK's {@code completeOnTimeout} would cancel there, under its scheduler's lock.
     */
    public CompletableFuture<@Nullable Void> next(long remainingNanos, int round) {
      long wait = Math.min(remainingNanos, sliceNanos > 0 ? sliceNanos : backoff(round));
      if (wait <= 0) {
        return CompletableFuture.completedFuture(null);
      }
      CompletableFuture<@Nullable Void> next = woken.copy();
      CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS, Runnable::run)
          .execute(() -> next.complete(null));
      return next;
    }

    private static long backoff(int round) {
      long cap = Math.min(MAX_BACKOFF_NANOS, MIN_BACKOFF_NANOS << Math.min(round, 10));
      return ThreadLocalRandom.current().nextLong(cap / 2, cap + 1);
    }

    @Override
    public void close() {
      subscription.close();
    }
  }
}
