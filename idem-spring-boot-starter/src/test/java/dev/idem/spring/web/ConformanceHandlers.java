package dev.idem.spring.web;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the HTTP conformance suite asks of the handlers on either stack: they count their executions
 * per {@code X-Run} header (one run id per test), the engine's claims of each key are counted, and
 * a test can hold the slow handlers of its run until it releases them.
 */
public abstract class ConformanceHandlers {

  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Void>> holds = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> claims = new ConcurrentHashMap<>();
  private final Map<String, Set<Thread>> claimers = new ConcurrentHashMap<>();

  /** How often the handlers of {@code run} ran. */
  int runs(String run) {
    AtomicInteger count = runs.get(run);
    return count == null ? 0 : count.get();
  }

  /** How often the engine claimed the key {@code keyValue} (in any scope). */
  int claims(String keyValue) {
    AtomicInteger count = claims.get(keyValue);
    return count == null ? 0 : count.get();
  }

  /**
   * How many threads claimed the key {@code keyValue}. On Spring MVC a request that waits keeps its
   * thread, so while none has finished this counts requests, where {@link #claims} also counts a
   * waiter's repeated claims.
   */
  int claimers(String keyValue) {
    Set<Thread> threads = claimers.get(keyValue);
    return threads == null ? 0 : threads.size();
  }

  /** The engine claims {@code keyValue} now, on this thread. */
  void claimed(String keyValue) {
    claims.computeIfAbsent(keyValue, k -> new AtomicInteger()).incrementAndGet();
    claimers
        .computeIfAbsent(keyValue, k -> ConcurrentHashMap.newKeySet())
        .add(Thread.currentThread());
  }

  /** Makes {@code /slow} and {@code /slow-wait} of {@code run} hold until {@link #release}. */
  void hold(String run) {
    holds.put(run, new CompletableFuture<>());
  }

  void release(String run) {
    CompletableFuture<Void> held = holds.get(run);
    if (held != null) {
      held.complete(null);
    }
  }

  /** Ends when {@code run} is released (at once when it is not held); never blocks. */
  CompletableFuture<Void> released(String run) {
    return holds.getOrDefault(run, CompletableFuture.completedFuture(null));
  }

  /** {@code text} in UTF-8, gzip-compressed. */
  static byte[] gzip(String text) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream zip = new java.util.zip.GZIPOutputStream(out)) {
      zip.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Counts one execution of {@code run} and answers its number. */
  int count(String run) {
    return runs.computeIfAbsent(run, r -> new AtomicInteger()).incrementAndGet();
  }

  /** Waits while {@code run} is held; blocks, so never on an event loop. */
  void awaitRelease(String run) throws InterruptedException {
    CompletableFuture<Void> held = holds.get(run);
    if (held == null) {
      return;
    }
    try {
      held.get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("run " + run + " was held and never released", e);
    }
  }
}
