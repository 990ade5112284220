package dev.idem.testsupport;

import static dev.idem.testsupport.Stages.now;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many threads racing for few keys on one store, as ShedLock's fuzz tester does for locks.
 *
 * <p>Each thread asks for every key {@code attempts} times, in its own random order. A caller that
 * wins a claim sometimes "crashes": it abandons the lease without completing, and a later caller
 * must take the key over once the lease ends. Otherwise it performs the effect (counted per key)
 * and stores a unique answer. Callers that find the key completed record the answer they were
 * given. {@link Report} then tells whether each key had exactly one effect and every caller saw the
 * same answer.
 */
public final class ConcurrencyFuzzer {

  private final IdempotencyStore store;
  private final int threads;
  private final int keys;
  private final int attempts;
  private final double crashRate;
  private final Duration lease;
  private final Runnable backoff;
  private final Set<IdempotencyKey> crashed = ConcurrentHashMap.newKeySet();

  /**
   * @param crashRate the share of keys whose first winning claim is abandoned, 0 to 1
   * @param lease the lease of each claim; crashed keys wait this long to be taken over
   * @param backoff what a caller does after finding a key in progress (lets some time pass)
   */
  public ConcurrencyFuzzer(
      IdempotencyStore store,
      int threads,
      int keys,
      int attempts,
      double crashRate,
      Duration lease,
      Runnable backoff) {
    this.backoff = backoff;
    this.store = store;
    this.threads = threads;
    this.keys = keys;
    this.attempts = attempts;
    this.crashRate = crashRate;
    this.lease = lease;
  }

  /** What happened, per key. */
  public record Report(
      Map<IdempotencyKey, Integer> effects,
      Map<IdempotencyKey, Set<String>> answers,
      int crashes,
      int calls) {

    /** Keys whose effect count is not exactly one. */
    public Map<IdempotencyKey, Integer> keysWithoutExactlyOneEffect() {
      Map<IdempotencyKey, Integer> wrong = new java.util.HashMap<>();
      effects.forEach(
          (k, n) -> {
            if (n != 1) {
              wrong.put(k, n);
            }
          });
      return wrong;
    }

    /** Keys whose callers were told different answers. */
    public Map<IdempotencyKey, Set<String>> keysWithDifferingAnswers() {
      Map<IdempotencyKey, Set<String>> wrong = new java.util.HashMap<>();
      answers.forEach(
          (k, seen) -> {
            if (seen.size() != 1) {
              wrong.put(k, seen);
            }
          });
      return wrong;
    }
  }

  /** Runs the race and returns what happened; fails if it takes longer than {@code timeout}. */
  public Report run(String scope, Duration timeout) throws Exception {
    List<IdempotencyKey> all = new ArrayList<>();
    Map<IdempotencyKey, AtomicInteger> effects = new ConcurrentHashMap<>();
    Map<IdempotencyKey, Set<String>> answers = new ConcurrentHashMap<>();
    for (int i = 0; i < keys; i++) {
      IdempotencyKey key = IdempotencyKey.of(scope, "fuzz-" + i);
      all.add(key);
      effects.put(key, new AtomicInteger());
      answers.put(key, ConcurrentHashMap.newKeySet());
    }
    AtomicInteger crashes = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    long deadline = System.nanoTime() + timeout.toNanos();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long seed = t;
        running.add(
            pool.submit(
                () -> {
                  start.await();
                  List<IdempotencyKey> order = new ArrayList<>(all);
                  Random random = new Random(seed);
                  for (int a = 0; a < attempts; a++) {
                    Collections.shuffle(order, random);
                    for (IdempotencyKey key : order) {
                      callUntilAnswered(key, effects, answers, crashes, calls, deadline);
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : running) {
        f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    Map<IdempotencyKey, Integer> counted = new java.util.HashMap<>();
    effects.forEach((k, n) -> counted.put(k, n.get()));
    return new Report(counted, answers, crashes.get(), calls.get());
  }

  private void callUntilAnswered(
      IdempotencyKey key,
      Map<IdempotencyKey, AtomicInteger> effects,
      Map<IdempotencyKey, Set<String>> answers,
      AtomicInteger crashes,
      AtomicInteger calls,
      long deadline) {
    Fingerprint fp = Fingerprint.of("fuzz", key.value());
    while (System.nanoTime() < deadline) {
      calls.incrementAndGet();
      ClaimResult result;
      try {
        result = now(store.claim(ClaimRequest.of(key, fp, lease)));
      } catch (IdempotencyStoreException e) {
        // a claim the store could not answer in time (its bound is half the short lease, which a
        // loaded machine can pass) takes nothing: the caller tries again, as a client would
        backoff.run();
        continue;
      }
      if (result instanceof ClaimResult.Claimed claimed) {
        if (crashesHere(key) && crashed.add(key)) {
          crashes.incrementAndGet();
          return;
        }
        String answer = "answer-" + key.value() + "-" + claimed.lease().owner();
        if (now(
            store.complete(claimed.lease(), Outcome.success(bytes(answer)), Duration.ofHours(1)))) {
          Objects.requireNonNull(effects.get(key)).incrementAndGet();
          Objects.requireNonNull(answers.get(key)).add(answer);
        }
        return;
      }
      if (result instanceof ClaimResult.Completed completed) {
        byte[] payload = Objects.requireNonNull(completed.record().outcome()).payload();
        Objects.requireNonNull(answers.get(key)).add(new String(payload, StandardCharsets.UTF_8));
        return;
      }
      if (!(result instanceof ClaimResult.InProgress)) {
        throw new AssertionError("unexpected claim result for " + key + ": " + result);
      }
      backoff.run();
    }
    throw new AssertionError("no answer for " + key + " before the deadline");
  }

  // The first winner of every (1 / crashRate)-th key crashes: a fixed number of crashes per run,
  // so a run can never happen to simulate none.
  private boolean crashesHere(IdempotencyKey key) {
    if (crashRate <= 0) {
      return false;
    }
    int every = Math.max(1, (int) Math.round(1 / crashRate));
    return Integer.parseInt(key.value().substring("fuzz-".length())) % every == 0;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
