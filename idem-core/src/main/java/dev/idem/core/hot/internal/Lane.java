package dev.idem.core.hot.internal;

import dev.idem.core.hot.Deduction;
import dev.idem.core.hot.DeductionAbandonedException;
import dev.idem.core.hot.DeductionFailedException;
import dev.idem.core.hot.DeductionResult;
import dev.idem.core.hot.HotAccountQueueFullException;
import dev.idem.core.hot.HotAccountStore;
import dev.idem.core.hot.internal.Pending.State;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The queue of one account. At most one caller leads at a time: it takes up to a batch from the
 * head of the queue (its own deduction among them), applies it through the store, answers every
 * caller of the batch, and hands the lead to the caller now at the head, or closes the lane when
 * the queue is empty. No thread is ever started, and an idle account leaves nothing behind.
 *
 * <p>The first leader of a lane may gather first: wait, up to a bound, until as many deductions as
 * {@code expected} are queued (the account's last batch before it went idle), so that callers
 * answered together and coming back together are applied together.
 *
 * <p>Invariant: the lane is active (someone leads or is about to) exactly when the queue is not
 * empty or a batch is in flight; a closed lane takes no more deductions.
 */
public final class Lane<K> {

  private final K account;
  private final HotAccountStore<K> store;
  private final int maxBatch;
  private final Consumer<Lane<K>> onClose;
  private final int gatherTarget;
  private final long gatherNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private boolean active;
  private boolean closed;
  private boolean gathered;
  private @Nullable Pending gathering;
  private int lastBatch;

  /**
   * @param expected how many deductions the first batch should hold if they come in time
   * @param gatherNanos how long the first leader waits for them at most; 0 for not at all
   * @param onClose removes the lane from its executor; called under the lane's lock
   */
  public Lane(
      K account,
      HotAccountStore<K> store,
      int maxBatch,
      int expected,
      long gatherNanos,
      Consumer<Lane<K>> onClose) {
    this.account = account;
    this.store = store;
    this.maxBatch = maxBatch;
    this.gatherTarget = Math.min(expected, maxBatch);
    this.gatherNanos = gatherNanos;
    this.onClose = onClose;
  }

  /** The size of the batch applied last; call once the lane has closed. */
  public int lastBatch() {
    lock.lock();
    try {
      return lastBatch;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Queues {@code deduction} and waits at most {@code waitNanos} for its result, applying batches
   * when it is this caller's turn to lead.
   *
   * @return the result, or null when the lane had closed (queue on a fresh lane instead)
   */
  public @Nullable DeductionResult deduct(Deduction deduction, int maxQueue, long waitNanos) {
    lock.lock();
    try {
      if (closed) {
        return null;
      }
      if (queue.size() >= maxQueue) {
        throw new HotAccountQueueFullException(account, maxQueue);
      }
      Pending p =
          new Pending(deduction, lock.newCondition(), active ? State.QUEUED : State.LEADING);
      active = true;
      queue.add(p);
      if (gathering != null && queue.size() >= gatherTarget) {
        gathering.changed.signal();
      }
      return await(p, waitNanos);
    } finally {
      lock.unlock();
    }
  }

  /** How many deductions wait in the queue, not counting a batch in flight. */
  public int queued() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  private DeductionResult await(Pending p, long waitNanos) {
    long left = waitNanos;
    while (true) {
      if (p.state == State.DONE) {
        if (p.failure != null) {
          throw new DeductionFailedException(p.deduction.requestId(), p.failure);
        }
        return Objects.requireNonNull(p.result, "a deduction done without failure has a result");
      }
      if (left <= 0) {
        throw abandon(p, false);
      }
      if (p.state == State.LEADING) {
        left = lead(left);
        continue;
      }
      try {
        left = p.changed.awaitNanos(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw abandon(p, true);
      }
    }
  }

  private DeductionAbandonedException abandon(Pending p, boolean interrupted) {
    boolean inFlight = p.state == State.IN_FLIGHT;
    if (!inFlight) {
      boolean wasLeading = p.state == State.LEADING;
      queue.remove(p);
      p.state = State.DONE;
      if (wasLeading) {
        handOff();
      }
    }
    return new DeductionAbandonedException(p.deduction.requestId(), inFlight, interrupted);
  }

  // Called with the lock held by the caller whose deduction is at the head; releases it while the
  // store works. Answers what is left of the leader's wait after gathering.
  private long lead(long waitNanos) {
    long left = waitNanos;
    if (!gathered) {
      gathered = true;
      left = gather(waitNanos);
    }
    List<Pending> batch = new ArrayList<>(Math.min(maxBatch, queue.size()));
    List<Deduction> deductions = new ArrayList<>(batch.size());
    while (batch.size() < maxBatch && !queue.isEmpty()) {
      Pending next = queue.poll();
      next.state = State.IN_FLIGHT;
      batch.add(next);
      deductions.add(next.deduction);
    }
    lastBatch = batch.size();
    @Nullable List<DeductionResult> results = null;
    @Nullable Throwable failure = null;
    lock.unlock();
    try {
      results = store.apply(account, List.copyOf(deductions));
      if (results == null || results.size() != deductions.size()) {
        throw new IllegalStateException(
            "store answered "
                + (results == null ? "null" : results.size() + " results")
                + " for a batch of "
                + deductions.size());
      }
      // a null result would read as a closed lane, and the caller would apply its deduction again
      if (results.stream().anyMatch(Objects::isNull)) {
        throw new IllegalStateException("store answered a null result in a batch");
      }
    } catch (RuntimeException | Error e) {
      failure = e;
    } finally {
      lock.lock();
    }
    for (int i = 0; i < batch.size(); i++) {
      batch.get(i).finish(failure == null ? Objects.requireNonNull(results).get(i) : null, failure);
    }
    handOff();
    return left;
  }

  // The first leader, at the head of the queue, waits with the lock released until the queue holds
  // the expected batch, the bound runs out, or only a little of its own wait is left (it keeps the
  // rest for the store). It cannot be abandoned meanwhile (its own thread is here), and an
  // interrupt only ends the gathering: the callers queued behind it need their batch, and the
  // interrupt status stays set for the caller to see. Answers what is left of the leader's wait.
  private long gather(long waitNanos) {
    if (gatherTarget <= 1 || gatherNanos <= 0) {
      return waitNanos;
    }
    long bound = Math.min(gatherNanos, waitNanos / 2);
    Pending leader = queue.peek();
    gathering = leader;
    long left = bound;
    try {
      while (queue.size() < gatherTarget && left > 0) {
        left = leader.changed.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      gathering = null;
    }
    return waitNanos - (bound - Math.max(left, 0));
  }

  private void handOff() {
    Pending head = queue.peek();
    if (head != null) {
      head.promote();
    } else {
      active = false;
      closed = true;
      onClose.accept(this);
    }
  }
}
