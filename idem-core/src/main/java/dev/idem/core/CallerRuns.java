package dev.idem.core;

import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The executor of one blocking call: its tasks run on the thread that made it, while that thread
 * waits for the call's stage to end. The engine writes its rules once, as stages on an executor;
 * the blocking call hands it one of these, so that the claim, the work and the settlement run where
 * a blocking caller expects them (in its transaction, with its thread's context), and a store
 * answer that arrives on a client's thread is taken up here rather than there.
 *
 * <p>Handing a task over takes no lock and never waits: it is called from a store client's I/O
 * thread, which must not block. Tasks handed over after the wait ended are refused: the caller has
 * gone.
 */
final class CallerRuns implements Executor {

  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final Thread owner = Thread.currentThread();
  private volatile boolean gone;

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    if (gone && tasks.remove(task)) {
      throw new RejectedExecutionException("the blocking call has returned");
    }
    LockSupport.unpark(owner);
  }

  /**
   * Runs, on this thread, the tasks handed over so far, without waiting for more: what followed
   * store answers that came while the caller was busy (a batch between two of its calls).
   */
  void runHandedOver() {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException("run on a thread other than its caller's");
    }
    for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
      task.run();
    }
  }

  /** {@link #join(CompletableFuture, Runnable)} where an interrupt changes nothing. */
  <V extends @Nullable Object> V join(CompletableFuture<V> stage) {
    return join(stage, () -> {});
  }

  /**
   * Runs tasks on this thread until {@code stage} ends, and returns its value or throws what it
   * failed with, unwrapped: a checked exception too, as the blocking call declares it.
   *
   * @param onInterrupt told once, on this thread, when the thread is interrupted while it waits;
   *     the wait goes on until the stage ends (the stage decides what an interrupt means), and the
   *     tasks that run from then on run with the thread's interrupt flag set, as does the caller
   *     after
   */
  <V extends @Nullable Object> V join(CompletableFuture<V> stage, Runnable onInterrupt) {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException("joined on a thread other than its caller's");
    }
    stage.whenComplete((value, failure) -> LockSupport.unpark(owner));
    boolean interrupted = false;
    try {
      while (true) {
        Runnable task = tasks.poll();
        if (task != null) {
          if (interrupted) {
            owner.interrupt();
          }
          task.run();
          continue;
        }
        if (stage.isDone()) {
          break;
        }
        // an interrupt is taken once and the flag cleared, or park would return at once for ever
        if (Thread.interrupted() || park()) {
          if (!interrupted) {
            interrupted = true;
            onInterrupt.run();
          }
        }
      }
    } finally {
      gone = true;
      for (Runnable left = tasks.poll(); left != null; left = tasks.poll()) {
        left.run();
      }
      if (interrupted) {
        owner.interrupt();
      }
    }
    return value(stage);
  }

  // Parks until a task or the stage's end unparks it; true when an interrupt woke it.
  private boolean park() {
    LockSupport.park(this);
    return Thread.interrupted();
  }

  private static <V> V value(CompletableFuture<V> stage) {
    try {
      return stage.join();
    } catch (CompletionException | CancellationException e) {
      throw rethrown(Settlement.unwrap(e));
    }
  }

  /** Throws {@code failure} as it is, a checked exception too, as the blocking call declares it. */
  static RuntimeException rethrown(Throwable failure) {
    throw CallerRuns.<RuntimeException>sneaky(failure);
  }

  @SuppressWarnings("unchecked")
  private static <X extends Throwable> X sneaky(Throwable failure) throws X {
    throw (X) failure;
  }
}
