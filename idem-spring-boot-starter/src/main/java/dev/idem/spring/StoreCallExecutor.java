package dev.idem.spring;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.DisposableBean;

/**
 * The bounded threads on which asynchronous and reactive calls make the store's calls, so that no
 * caller's thread (an event loop above all) blocks on the store. Full, it refuses a call with a
 * {@link RejectedExecutionException} that names the property to raise.
 */
public final class StoreCallExecutor implements Executor, DisposableBean {

  private final ThreadPoolExecutor threads;

  /**
   * @param threads the most threads at once, each idle one ending after a minute
   * @param queueCapacity the calls that may wait for a thread
   */
  public StoreCallExecutor(int threads, int queueCapacity) {
    if (threads < 1 || queueCapacity < 1) {
      throw new IllegalArgumentException(
          "idem.async.threads and idem.async.queue-capacity must be at least 1, not "
              + threads
              + " and "
              + queueCapacity);
    }
    AtomicInteger count = new AtomicInteger();
    this.threads =
        new ThreadPoolExecutor(
            threads,
            threads,
            1,
            TimeUnit.MINUTES,
            new LinkedBlockingQueue<>(queueCapacity),
            work -> {
              Thread thread = new Thread(work, "idem-store-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            },
            (work, pool) -> {
              throw new RejectedExecutionException(
                  queueCapacity
                      + " store calls already wait for the store (idem.async.queue-capacity)");
            });
    this.threads.allowCoreThreadTimeOut(true);
  }

  @Override
  public void execute(Runnable command) {
    threads.execute(command);
  }

  /** Lets the calls under way end; takes no new ones. */
  @Override
  public void destroy() throws InterruptedException {
    threads.shutdown();
    threads.awaitTermination(10, TimeUnit.SECONDS);
  }
}
