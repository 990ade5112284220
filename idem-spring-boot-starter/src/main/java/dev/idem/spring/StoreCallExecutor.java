package dev.idem.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * The bounded threads on which asynchronous and reactive calls make the store's calls, so that no
 * caller's thread (an event loop above all) blocks on the store. Handing a call over never blocks
 * the caller either: the queue takes no lock, and a thread is woken without one (a pool on a locked
 * queue parks an event loop whenever two hand calls over at once). Full, it refuses a call with a
 * {@link RejectedExecutionException} that names the property to raise.
 */
public final class StoreCallExecutor implements Executor, DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(StoreCallExecutor.class);

  private final ThreadFactory factory;
  private final int maxThreads;
  private final int queueCapacity;
  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  // one permit per queued call: a free thread takes one, or waits for one
  private final Semaphore calls = new Semaphore(0);
  private final AtomicInteger started = new AtomicInteger();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean closed;

  /**
   * @param threads the most threads, started as calls come
   * @param queueCapacity the calls that may wait for a thread
   */
  public StoreCallExecutor(int threads, int queueCapacity) {
    this(threads, queueCapacity, IdemThreads.platform());
  }

  /**
   * @param threads the most threads, started as calls come
   * @param queueCapacity the calls that may wait for a thread
   * @param factory makes the threads (virtual ones where the application runs on them)
   */
  public StoreCallExecutor(int threads, int queueCapacity, ThreadFactory factory) {
    this.factory = Objects.requireNonNull(factory, "factory");
    if (threads < 1 || queueCapacity < 1) {
      throw new IllegalArgumentException(
          "idem.async.threads and idem.async.queue-capacity must be at least 1, not "
              + threads
              + " and "
              + queueCapacity);
    }
    this.maxThreads = threads;
    this.queueCapacity = queueCapacity;
  }

  /**
   * Runs {@code command} on a store thread, after the calls queued before it.
   *
   * @throws RejectedExecutionException when {@code idem.async.queue-capacity} calls already wait,
   *     or the executor is shut down
   */
  @Override
  public void execute(Runnable command) {
    if (closed) {
      throw shutDown();
    }
    if (queued.incrementAndGet() > queueCapacity) {
      queued.decrementAndGet();
      throw new RejectedExecutionException(
          queueCapacity + " store calls already wait for the store (idem.async.queue-capacity)");
    }
    queue.add(command);
    if (closed && queue.remove(command)) {
      // shut down meanwhile: the threads may be gone, and nothing would run it
      queued.decrementAndGet();
      throw shutDown();
    }
    calls.release();
    if (started.get() < maxThreads) {
      startThread();
    }
  }

  private static RejectedExecutionException shutDown() {
    return new RejectedExecutionException("the store's threads are shut down");
  }

  private void startThread() {
    int number = started.incrementAndGet();
    if (number > maxThreads) {
      started.decrementAndGet();
      return;
    }
    Thread thread = factory.newThread(this::work);
    thread.setName("idem-store-" + number);
    synchronized (threads) {
      threads.add(thread);
    }
    thread.start();
  }

  private void work() {
    while (true) {
      try {
        calls.acquire();
      } catch (InterruptedException e) {
        return;
      }
      Runnable command = queue.poll();
      if (command == null) {
        return; // woken to end
      }
      queued.decrementAndGet();
      run(command);
    }
  }

  private static void run(Runnable command) {
    try {
      command.run();
    } catch (Throwable e) {
      // the thread goes on serving: the calls queued behind this one must still run
      log.error("a store call failed outside the engine's handling", e);
    }
  }

  /** Lets the calls under way and queued end, up to ten seconds; takes no new ones. */
  @Override
  public void destroy() throws InterruptedException {
    closed = true;
    List<Thread> all;
    synchronized (threads) {
      all = List.copyOf(threads);
    }
    // a permit without a call tells a thread to end, once the calls before it are done
    calls.release(all.size());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (Thread thread : all) {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
  }
}
