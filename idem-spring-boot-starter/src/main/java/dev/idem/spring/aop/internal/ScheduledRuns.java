package dev.idem.spring.aop.internal;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.RequestInProgressException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs of {@code @Scheduled} methods keyed by their slot. Every node fires each slot; the first to
 * claim it runs it, and the others, finding it in progress, skip it quietly and look at it again
 * when the running node's lease would end: a slot that completed is left alone, one whose node died
 * is taken over (with a greater fence) and run on this node's follow-up thread, one still running
 * is looked at again later. A node follows a slot for at most the operation's retention. A
 * follow-up calls the method through its proxy, so that every advice around it (a transaction) runs
 * again, with the slot it follows handed to the advice ({@link #takeFollowedSlot}) rather than read
 * from the clock, which may be in the next slot by then.
 */
public final class ScheduledRuns implements AutoCloseable {

  /** One attempt at a slot: claims its key and runs the method when the claim is won. */
  @FunctionalInterface
  public interface Attempt {
    @Nullable Object call() throws Exception;
  }

  private static final Logger log = LoggerFactory.getLogger(ScheduledRuns.class);
  private static final ThreadLocal<String> FOLLOWED = new ThreadLocal<>();
  private static final Duration LEAST_WAIT = Duration.ofSeconds(1);

  private final Set<IdempotencyKey> following = ConcurrentHashMap.newKeySet();
  private volatile @Nullable ScheduledExecutorService followUps;
  private volatile boolean closed;

  /**
   * The slot a follow-up on this thread calls the method for, taken so that no other call on the
   * thread sees it; null for a call the scheduler made.
   */
  public static String takeFollowedSlot() {
    String slot = FOLLOWED.get();
    FOLLOWED.remove();
    return slot;
  }

  /**
   * An attempt that calls {@code method} on {@code proxy} for the slot {@code slot}, through every
   * advice around it.
   */
  public static Attempt through(Object proxy, java.lang.reflect.Method method, String slot) {
    return () -> {
      FOLLOWED.set(slot);
      try {
        org.springframework.util.ReflectionUtils.makeAccessible(method);
        return method.invoke(proxy);
      } catch (java.lang.reflect.InvocationTargetException e) {
        if (e.getTargetException() instanceof Exception failure) {
          throw failure;
        }
        throw (Error) e.getTargetException();
      } finally {
        FOLLOWED.remove();
      }
    };
  }

  /**
   * Runs {@code first}; when another node holds the slot, answers null (a scheduled method's result
   * goes nowhere) and follows the slot with the attempts {@code again} makes.
   */
  public @Nullable Object run(
      MethodPlan plan, IdempotencyKey key, Attempt first, @Nullable Supplier<Attempt> again)
      throws Exception {
    try {
      return first.call();
    } catch (RequestInProgressException e) {
      log.debug("{} runs on another node; followed until it ends", key);
      follow(plan, key, again, every(plan, e), Instant.now().plus(plan.config().retention()));
      return null;
    }
  }

  private void follow(
      MethodPlan plan,
      IdempotencyKey key,
      @Nullable Supplier<Attempt> again,
      Duration after,
      Instant until) {
    if (again == null || !following.add(key)) {
      return;
    }
    schedule(plan, key, again, after, until);
  }

  private void schedule(
      MethodPlan plan, IdempotencyKey key, Supplier<Attempt> again, Duration after, Instant until) {
    Duration wait = after.compareTo(LEAST_WAIT) < 0 ? LEAST_WAIT : after;
    if (Instant.now().plus(wait).isAfter(until)) {
      following.remove(key);
      return;
    }
    try {
      executor()
          .schedule(
              () -> lookAgain(plan, key, again, until), wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      following.remove(key);
    }
  }

  private void lookAgain(
      MethodPlan plan, IdempotencyKey key, Supplier<Attempt> again, Instant until) {
    try {
      again.get().call();
      following.remove(key);
    } catch (RequestInProgressException e) {
      schedule(plan, key, again, every(plan, e), until);
    } catch (Exception | Error e) {
      following.remove(key);
      log.warn("{}: the follow-up of a slot another node held failed", key, e);
    }
  }

  // about every half lease: a node that died is taken over at most half a lease after its lease
  // ended, and a long run elsewhere costs the store a claim per half lease, not per second
  private static Duration every(MethodPlan plan, RequestInProgressException e) {
    Duration half = plan.config().lease().dividedBy(2);
    return e.retryAfter().compareTo(half) > 0 ? e.retryAfter() : half;
  }

  private ScheduledExecutorService executor() {
    if (closed) {
      throw new RejectedExecutionException("closed");
    }
    ScheduledExecutorService current = followUps;
    if (current == null) {
      synchronized (this) {
        current = followUps;
        if (current == null) {
          current =
              Executors.newSingleThreadScheduledExecutor(
                  r -> {
                    Thread thread = new Thread(r, "idem-scheduled-follow-up");
                    thread.setDaemon(true);
                    return thread;
                  });
          followUps = current;
        }
      }
    }
    return current;
  }

  @Override
  public void close() {
    closed = true;
    ScheduledExecutorService current = followUps;
    if (current != null) {
      current.shutdownNow();
    }
  }
}
