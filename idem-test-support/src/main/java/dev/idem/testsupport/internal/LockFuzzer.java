package dev.idem.testsupport.internal;

import dev.idem.core.lock.LockHandle;
import dev.idem.core.lock.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lets {@value #THREADS} threads take and release {@value #NAMES} locks {@value #ROUNDS} times
 * each, all starting at once, and records what the holders saw: how many held a name together, and
 * the fences in the order the lock was taken. Used by the lock contract; not part of the API.
 */
public final class LockFuzzer {

  /** Threads taking locks at the same time. */
  public static final int THREADS = 8;

  /** Acquisitions per thread. */
  public static final int ROUNDS = 200;

  /** Distinct lock names the threads compete for. */
  public static final int NAMES = 3;

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final LockProvider provider;
  private final Duration lease;
  private final List<String> names = new ArrayList<>();
  private final Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
  private final Map<String, List<Long>> fences = new ConcurrentHashMap<>();
  private final AtomicInteger mostHoldersAtOnce = new AtomicInteger();
  private final AtomicInteger acquisitions = new AtomicInteger();

  /**
   * A fuzzer for {@code provider} on names starting with {@code prefix}, locked for {@code lease}.
   */
  public LockFuzzer(LockProvider provider, String prefix, Duration lease) {
    this.provider = provider;
    this.lease = lease;
    for (int i = 0; i < NAMES; i++) {
      String name = prefix + "-fuzz-" + i;
      names.add(name);
      holders.put(name, new AtomicInteger());
      fences.put(name, Collections.synchronizedList(new ArrayList<>()));
    }
  }

  /**
   * Runs the threads on {@code executor} and waits for them.
   *
   * @throws java.util.concurrent.ExecutionException if a thread failed, for instance because it
   *     could not take a lock within ten seconds
   */
  public Result run(ExecutorService executor) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> workers = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      workers.add(executor.submit(() -> work(start)));
    }
    start.countDown();
    for (Future<?> worker : workers) {
      worker.get(20, TimeUnit.SECONDS);
    }
    return new Result(acquisitions.get(), mostHoldersAtOnce.get(), Map.copyOf(fences));
  }

  private Void work(CountDownLatch start) throws InterruptedException {
    start.await();
    for (int round = 0; round < ROUNDS; round++) {
      String name = names.get(ThreadLocalRandom.current().nextInt(NAMES));
      LockHandle handle =
          provider
              .tryLock(name, WAIT, lease)
              .orElseThrow(() -> new AssertionError("could not take " + name + " within " + WAIT));
      try (handle) {
        int holding = Objects.requireNonNull(holders.get(name)).incrementAndGet();
        mostHoldersAtOnce.accumulateAndGet(holding, Math::max);
        Objects.requireNonNull(fences.get(name)).add(handle.fence());
        // Widens the window in which a second holder, if the provider let one in, would be seen.
        Thread.yield();
        holders.get(name).decrementAndGet();
      }
      acquisitions.incrementAndGet();
    }
    return null;
  }

  /**
   * What the threads saw.
   *
   * @param acquisitions locks taken in total
   * @param mostHoldersAtOnce the most holders any one name had at the same moment; 1 if exclusive
   * @param fencesInAcquisitionOrder per name, the fences of its holders in the order they held it
   */
  public record Result(
      int acquisitions, int mostHoldersAtOnce, Map<String, List<Long>> fencesInAcquisitionOrder) {}
}
