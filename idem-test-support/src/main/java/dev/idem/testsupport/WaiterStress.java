package dev.idem.testsupport;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.IdempotencyStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Many duplicates waiting in WAIT mode on one key while the first attempt fails and a second one
 * runs, round after round: the release wakes them all at once, they leave and register again while
 * one of them claims, and the rest must be woken by its completion.
 *
 * <p>Each caller has its own engine, as if it ran in another instance, so only the store's change
 * notices can wake it. The lease is longer than four times {@code maxWait}, so a waiter that misses
 * a notice sleeps until its {@code maxWait} runs out; one that catches it answers within
 * milliseconds. {@link #run} lists every caller that did not get the stored answer before its
 * {@code maxWait} ran out.
 */
public final class WaiterStress {

  private static final Duration MAX_WAIT = Duration.ofSeconds(3);
  private static final Duration LEASE = MAX_WAIT.multipliedBy(5);
  private static final String ANSWER = "answer";

  private final IdempotencyStore store;
  private final int waiters;
  private final int rounds;

  /**
   * @param waiters duplicates per round, besides the caller whose attempt fails
   * @param rounds rounds, each on a fresh key
   */
  public WaiterStress(IdempotencyStore store, int waiters, int rounds) {
    this.store = store;
    this.waiters = waiters;
    this.rounds = rounds;
  }

  /** Runs every round and returns what went wrong, one line per caller; empty when nothing did. */
  public List<String> run(String scope) throws Exception {
    IdempotencyConfig config =
        IdempotencyConfig.custom().lease(LEASE).waitInProgress(MAX_WAIT).build();
    List<Idempotency> engines = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(waiters + 1);
    List<String> wrong = new CopyOnWriteArrayList<>();
    try {
      for (int i = 0; i <= waiters; i++) {
        engines.add(Idempotency.builder(store).build());
      }
      for (int r = 0; r < rounds; r++) {
        round(
            IdempotencyKey.of(scope, "waiters-" + UUID.randomUUID()), engines, config, pool, wrong);
      }
    } finally {
      pool.shutdownNow();
      engines.forEach(Idempotency::close);
    }
    return wrong;
  }

  private static void round(
      IdempotencyKey key,
      List<Idempotency> engines,
      IdempotencyConfig config,
      ExecutorService pool,
      List<String> wrong)
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger failedAttempts = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> callers = new ArrayList<>();
    for (Idempotency engine : engines) {
      callers.add(
          pool.submit(
              () -> {
                go.await();
                long start = System.nanoTime();
                @Nullable String answer;
                try {
                  answer = engine.call(key, Fingerprint.NONE).config(config).run(ctx -> work(runs));
                } catch (IOException firstAttempt) {
                  failedAttempts.incrementAndGet();
                  return null;
                } catch (RuntimeException e) {
                  answer = e.getClass().getSimpleName();
                }
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                if (!ANSWER.equals(answer) || tookMillis >= MAX_WAIT.toMillis()) {
                  wrong.add(key.value() + ": " + answer + " after " + tookMillis + " ms");
                }
                return null;
              }));
    }
    go.countDown();
    for (Future<?> caller : callers) {
      caller.get(MAX_WAIT.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
    }
    if (failedAttempts.get() != 1 || runs.get() != 2) {
      wrong.add(key.value() + ": " + failedAttempts + " failed attempts in " + runs + " runs");
    }
  }

  // The work takes a moment, as real work does, so that duplicates usually find the key taken and
  // wait; the checks (every caller gets the answer, within its wait) hold whatever it takes.
  private static String work(AtomicInteger runs) throws IOException, InterruptedException {
    if (runs.incrementAndGet() == 1) {
      Thread.sleep(50);
      throw new IOException("first attempt fails");
    }
    Thread.sleep(20);
    return ANSWER;
  }
}
