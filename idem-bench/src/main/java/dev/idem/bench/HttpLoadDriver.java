package dev.idem.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop HTTP load: a fixed number of virtual users, each a thread with its own keep-alive
 * {@link HttpConnection}, send one request after another with no pause, first for a warmup and then
 * for a measured window. Requests that start inside the window count; their latencies go to one
 * HdrHistogram per user, merged at the end. Every answer is checked (status, and whether it was a
 * replay); the first wrong one fails the run, so a figure never hides errors.
 *
 * <p>At the window's edges the driver reads the CPU time of the load generator's threads and of the
 * whole process: the difference is what the server side of this JVM (Tomcat, Spring, the starter,
 * the store client, GC) spent. A user thread's CPU time is read while it runs, so a request in
 * flight at an edge falls on one side or the other; that is noise next to thousands per window.
 */
final class HttpLoadDriver {

  /** Which key a request sends and what answer it must get. */
  interface Requests {
    /**
     * The key for request {@code seq} of user {@code user}.
     *
     * @param seq a number this user never passed before in this run
     */
    String key(int user, long seq);

    /** Whether every answer must carry {@code Idempotent-Replayed: true} (else none may). */
    boolean replayed();
  }

  /**
   * What one window measured.
   *
   * @param requests requests started inside the window
   * @param seconds the window's length
   * @param latency their latencies in nanoseconds
   * @param clientCpuNanos CPU time of the load generator's threads over the window
   * @param processCpuNanos CPU time of the whole JVM over the window
   * @param handlerRuns how often the endpoint's handler ran during the window
   */
  record Result(
      long requests,
      double seconds,
      Histogram latency,
      long clientCpuNanos,
      long processCpuNanos,
      long handlerRuns) {

    double perSecond() {
      return requests / seconds;
    }

    double millisAt(double percentile) {
      return latency.getValueAtPercentile(percentile) / 1e6;
    }

    double clientMicrosPerRequest() {
      return clientCpuNanos / 1e3 / requests;
    }

    /** JVM CPU time other than the users' own, per request. */
    double serverMicrosPerRequest() {
      return (processCpuNanos - clientCpuNanos) / 1e3 / requests;
    }

    double handlerRunsPerRequest() {
      return handlerRuns / (double) requests;
    }

    /** This result and {@code other} as if measured in one window. */
    Result plus(Result other) {
      Histogram both = latency.copy();
      both.add(other.latency);
      return new Result(
          requests + other.requests,
          seconds + other.seconds,
          both,
          clientCpuNanos + other.clientCpuNanos,
          processCpuNanos + other.processCpuNanos,
          handlerRuns + other.handlerRuns);
    }
  }

  private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(60);
  private static final String THREAD_PREFIX = "http-bench-";

  private final int users;
  private final HttpConnection.Factory connections;
  private final String path;
  private final String body;
  private long runs;

  HttpLoadDriver(int users, HttpConnection.Factory connections, String path, String body) {
    this.users = users;
    this.connections = connections;
    this.path = path;
    this.body = body;
  }

  int users() {
    return users;
  }

  /**
   * Runs the users against {@code port} through warmup and window.
   *
   * @param handlerRuns reads the endpoint's run counter
   * @throws IllegalStateException if a request failed or got a wrong answer
   */
  Result run(
      String name,
      int port,
      Requests requests,
      LongSupplier handlerRuns,
      Duration warmup,
      Duration window)
      throws InterruptedException {
    // sequence numbers go on from run to run, so a scenario measured again gets fresh keys again
    long firstSeq = (runs++) << 40;
    Phase phase = new Phase();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<User> all = new ArrayList<>();
    for (int i = 0; i < users; i++) {
      User user = new User(i, firstSeq, port, requests, phase, failure);
      all.add(user);
      Thread thread = new Thread(user, THREAD_PREFIX + name + "-" + i);
      thread.setDaemon(true);
      user.thread = thread;
      thread.start();
    }
    Thread.sleep(warmup.toMillis());
    long runsBefore = handlerRuns.getAsLong();
    Map<Long, Long> clientBefore = clientCpuNanos();
    long cpuBefore = processCpuNanos();
    long start = System.nanoTime();
    phase.measuring = true;
    Thread.sleep(window.toMillis());
    phase.measuring = false;
    long end = System.nanoTime();
    long cpuAfter = processCpuNanos();
    Map<Long, Long> clientAfter = clientCpuNanos();
    long runsAfter = handlerRuns.getAsLong();
    phase.running = false;
    Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
    long count = 0;
    for (User user : all) {
      user.thread.join();
      latency.add(user.latency);
      count += user.count;
    }
    if (failure.get() != null) {
      throw new IllegalStateException(name + " failed: " + failure.get(), failure.get());
    }
    return new Result(
        count,
        (end - start) / 1e9,
        latency,
        between(clientBefore, clientAfter),
        cpuAfter - cpuBefore,
        runsAfter - runsBefore);
  }

  /**
   * CPU time so far of each of the load generator's threads, by thread id: the virtual users, and
   * the threads of {@code java.net.http.HttpClient} when it is the client.
   */
  private static Map<Long, Long> clientCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> cpu = new HashMap<>();
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && isClient(info.getThreadName())) {
        cpu.put(info.getThreadId(), Math.max(0, threads.getThreadCpuTime(info.getThreadId())));
      }
    }
    return cpu;
  }

  // A thread that ended inside the window is missing at its end, and its time is lost: HttpClient
  // threads of clients from earlier runs end when their clients are collected, and subtracting
  // their time would make the client's share negative.
  private static long between(Map<Long, Long> before, Map<Long, Long> after) {
    long sum = 0;
    for (Map.Entry<Long, Long> thread : after.entrySet()) {
      sum += Math.max(0, thread.getValue() - before.getOrDefault(thread.getKey(), 0L));
    }
    return sum;
  }

  private static boolean isClient(String thread) {
    return thread.startsWith(THREAD_PREFIX) || thread.startsWith("HttpClient-");
  }

  private static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime();
    }
    throw new IllegalStateException("this JVM does not report its CPU time");
  }

  /** Flags the users read on every request; written only by the coordinating thread. */
  private static final class Phase {
    volatile boolean running = true;
    volatile boolean measuring;
  }

  private final class User implements Runnable {
    private final int index;
    private final long firstSeq;
    private final int port;
    private final Requests requests;
    private final Phase phase;
    private final AtomicReference<Throwable> failure;
    private final Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
    private long count;
    private Thread thread;

    User(
        int index,
        long firstSeq,
        int port,
        Requests requests,
        Phase phase,
        AtomicReference<Throwable> failure) {
      this.index = index;
      this.firstSeq = firstSeq;
      this.port = port;
      this.requests = requests;
      this.phase = phase;
      this.failure = failure;
    }

    @Override
    public void run() {
      long seq = firstSeq;
      try (HttpConnection connection = connections.open(port, path, body)) {
        while (phase.running && failure.get() == null) {
          boolean counted = phase.measuring;
          String key = requests.key(index, seq++);
          long start = System.nanoTime();
          HttpConnection.Answer answer = connection.post(key);
          long nanos = System.nanoTime() - start;
          if (answer.status() != 201 || answer.replayed() != requests.replayed()) {
            throw new IllegalStateException(
                "unexpected answer to key "
                    + key
                    + ": "
                    + answer.status()
                    + (answer.replayed() ? " (replayed) " : " ")
                    + answer.body());
          }
          if (counted) {
            count++;
            latency.recordValue(Math.min(nanos, MAX_LATENCY_NANOS));
          }
        }
      } catch (Exception | Error e) {
        failure.compareAndSet(null, e);
      }
    }
  }
}
