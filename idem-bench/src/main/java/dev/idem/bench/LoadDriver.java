package dev.idem.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A closed-loop load: a fixed number of threads each run one operation after another, with no pause
 * between them, first for a warmup and then for a measured window. An operation counts when it ends
 * inside the window, and its latency is recorded; throughput is those operations over the window's
 * length. The first failure of any thread stops all of them and fails the run, so a figure never
 * hides errors.
 *
 * @param threads how many operations are in flight at once
 * @param warmup how long to run before measuring
 * @param window how long to measure
 */
record LoadDriver(int threads, Duration warmup, Duration window) {

  /** One operation, run over and over by every thread. */
  @FunctionalInterface
  interface Operation {
    void run() throws Exception;
  }

  /**
   * What one or more measured windows gave.
   *
   * @param operations operations that ended inside the windows
   * @param seconds the windows' total length
   * @param latencies every counted operation's latency in nanoseconds, sorted
   */
  record Result(long operations, double seconds, long[] latencies) {

    /** The windows of {@code results} taken together, as if they were one. */
    static Result combine(List<Result> results) {
      long[] all = results.stream().flatMapToLong(r -> Arrays.stream(r.latencies)).toArray();
      Arrays.sort(all);
      return new Result(
          results.stream().mapToLong(Result::operations).sum(),
          results.stream().mapToDouble(Result::seconds).sum(),
          all);
    }

    /** Operations per second. */
    double perSecond() {
      return operations / seconds;
    }

    /** The median latency in nanoseconds. */
    long p50Nanos() {
      return percentile(0.50);
    }

    /** The 99th percentile latency in nanoseconds. */
    long p99Nanos() {
      return percentile(0.99);
    }

    // Nearest rank: the smallest sample that at least the fraction p of all samples do not
    // exceed.
    private long percentile(double p) {
      if (latencies.length == 0) {
        return 0;
      }
      int rank = (int) Math.ceil(p * latencies.length);
      return latencies[Math.max(0, rank - 1)];
    }
  }

  /**
   * Runs {@code operation} on every thread through the warmup and the window.
   *
   * @throws IllegalStateException when an operation threw; its failure is the cause
   */
  Result run(Operation operation) throws InterruptedException {
    long start = System.nanoTime() + warmup.toNanos();
    long end = start + window.toNanos();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Worker> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Worker worker = new Worker(operation, start, end, failure);
      workers.add(worker);
      Thread thread = new Thread(worker, "bench-load-" + i);
      worker.thread = thread;
      thread.start();
    }
    for (Worker worker : workers) {
      worker.thread.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("an operation failed under load", failure.get());
    }
    long[] latencies = merge(workers);
    Arrays.sort(latencies);
    return new Result(latencies.length, window.toNanos() / 1e9, latencies);
  }

  private static long[] merge(List<Worker> workers) {
    int total = workers.stream().mapToInt(w -> w.count).sum();
    long[] all = new long[total];
    int at = 0;
    for (Worker w : workers) {
      System.arraycopy(w.latencies, 0, all, at, w.count);
      at += w.count;
    }
    return all;
  }

  private static final class Worker implements Runnable {
    private final Operation operation;
    private final long start;
    private final long end;
    private final AtomicReference<Throwable> failure;
    private long[] latencies = new long[1 << 14];
    private int count;
    private Thread thread;

    Worker(Operation operation, long start, long end, AtomicReference<Throwable> failure) {
      this.operation = operation;
      this.start = start;
      this.end = end;
      this.failure = failure;
    }

    @Override
    public void run() {
      try {
        while (failure.get() == null) {
          long began = System.nanoTime();
          operation.run();
          long ended = System.nanoTime();
          if (ended >= end) {
            return;
          }
          if (ended >= start) {
            record(ended - began);
          }
        }
      } catch (Exception | Error e) {
        failure.compareAndSet(null, e);
      }
    }

    private void record(long nanos) {
      if (count == latencies.length) {
        latencies = Arrays.copyOf(latencies, count * 2);
      }
      latencies[count++] = nanos;
    }
  }
}
