package dev.idem.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop load driver: a fixed number of threads each call one operation back to back, first
 * for a warmup, then for a measured window. Only operations that start inside the window count, and
 * their latencies go into one HdrHistogram per thread, merged at the end, so recording never makes
 * threads contend with each other.
 *
 * <p>The Redis command counters are read at the edges of the window. Operations still in flight at
 * an edge are at most one per thread, which is noise next to the hundreds of thousands in a window.
 */
final class RedisLoadDriver {

  /** One operation of a scenario. */
  @FunctionalInterface
  interface Op {
    /**
     * Runs the operation once.
     *
     * @param thread the calling worker's index, from 0
     * @param seq a number this worker never passed before, so keys can be fresh
     * @return true if it did what the scenario measures, false if it was refused (a busy lock)
     */
    boolean run(int thread, long seq) throws Exception;
  }

  /**
   * What one scenario measured.
   *
   * @param done operations that succeeded inside the window
   * @param refused operations refused inside the window (not in {@code done} nor in the latencies)
   * @param seconds the window's actual length
   * @param latency the latencies of the successful operations, in nanoseconds
   * @param commands the Redis commands run during the window
   */
  record Result(
      long done, long refused, double seconds, Histogram latency, CommandStats.Delta commands) {

    double perSecond() {
      return done / seconds;
    }

    double millisAt(double percentile) {
      return latency.getValueAtPercentile(percentile) / 1e6;
    }

    double commandsPerOp() {
      return commands.total() / (double) attempts();
    }

    /** CPU time of the Redis server per operation, in microseconds. */
    double redisMicrosPerOp() {
      return commands.redisCpu() / 1e3 / attempts();
    }

    /** CPU time of the whole benchmark JVM per operation, in microseconds. */
    double clientMicrosPerOp() {
      return commands.clientCpu() / 1e3 / attempts();
    }

    private long attempts() {
      return done + refused;
    }

    /** This result and {@code other} as if measured in one window. */
    Result plus(Result other) {
      Histogram both = latency.copy();
      both.add(other.latency);
      return new Result(
          done + other.done,
          refused + other.refused,
          seconds + other.seconds,
          both,
          commands.plus(other.commands));
    }
  }

  private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final int threads;
  private final CommandStats stats;
  private long runs;

  RedisLoadDriver(int threads, CommandStats stats) {
    this.threads = threads;
    this.stats = stats;
  }

  /**
   * Runs {@code op} on every thread through warmup and window.
   *
   * @throws IllegalStateException if any call threw; a benchmark that hides errors misleads
   */
  Result run(String name, Op op, Duration warmup, Duration window) throws InterruptedException {
    // Sequence numbers go on from run to run, so a scenario measured again gets fresh keys again.
    long firstSeq = (runs++) << 40;
    Phase phase = new Phase();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Worker> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Worker worker = new Worker(i, firstSeq, op, phase, failure);
      workers.add(worker);
      Thread thread = new Thread(worker, "bench-" + name + "-" + i);
      thread.setDaemon(true);
      worker.thread = thread;
      thread.start();
    }
    Thread.sleep(warmup.toMillis());
    CommandStats.Snapshot before = stats.snapshot();
    long start = System.nanoTime();
    phase.measuring = true;
    Thread.sleep(window.toMillis());
    phase.measuring = false;
    long end = System.nanoTime();
    CommandStats.Snapshot after = stats.snapshot();
    phase.running = false;
    Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
    long done = 0;
    long refused = 0;
    for (Worker worker : workers) {
      worker.thread.join();
      latency.add(worker.latency);
      done += worker.done;
      refused += worker.refused;
    }
    if (failure.get() != null) {
      throw new IllegalStateException(name + " failed: " + failure.get(), failure.get());
    }
    return new Result(done, refused, (end - start) / 1e9, latency, before.until(after));
  }

  /** Flags the workers read on every call; written only by the coordinating thread. */
  private static final class Phase {
    volatile boolean running = true;
    volatile boolean measuring;
  }

  private static final class Worker implements Runnable {
    private final int index;
    private final long firstSeq;
    private final Op op;
    private final Phase phase;
    private final AtomicReference<Throwable> failure;
    private final Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
    private long done;
    private long refused;
    private Thread thread;

    Worker(int index, long firstSeq, Op op, Phase phase, AtomicReference<Throwable> failure) {
      this.index = index;
      this.firstSeq = firstSeq;
      this.op = op;
      this.phase = phase;
      this.failure = failure;
    }

    @Override
    public void run() {
      long seq = firstSeq;
      while (phase.running && failure.get() == null) {
        boolean counted = phase.measuring;
        long start = System.nanoTime();
        boolean ok;
        try {
          ok = op.run(index, seq++);
        } catch (Exception | Error e) {
          failure.compareAndSet(null, e);
          return;
        }
        long nanos = System.nanoTime() - start;
        if (!counted) {
          continue;
        }
        if (ok) {
          done++;
          latency.recordValue(Math.min(nanos, MAX_LATENCY_NANOS));
        } else {
          refused++;
        }
      }
    }
  }
}
