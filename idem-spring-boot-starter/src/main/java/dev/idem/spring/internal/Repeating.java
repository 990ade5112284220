package dev.idem.spring.internal;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A task Idem runs on a thread of its own, again and again with a fixed delay between the end of
 * one run and the start of the next, from {@link #start} until {@link #stop}: the life of a
 * background job of the starter's (the purge of expired records, the completer's passes). The task
 * must not throw: a scheduled task that throws is never run again.
 */
public final class Repeating {

  private final ThreadFactory threads;
  private final String name;
  private final Duration delay;
  private final Runnable task;
  private volatile @Nullable ScheduledExecutorService scheduler;

  /**
   * @param threads makes the task's thread
   * @param name the thread's name
   * @param delay the wait before the first run and between two runs
   */
  public Repeating(ThreadFactory threads, String name, Duration delay, Runnable task) {
    this.threads = threads;
    this.name = name;
    this.delay = delay;
    this.task = task;
  }

  /** Starts the runs. */
  public void start() {
    ScheduledExecutorService started =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = threads.newThread(runnable);
              thread.setName(name);
              return thread;
            });
    long millis = delay.toMillis();
    started.scheduleWithFixedDelay(task, millis, millis, TimeUnit.MILLISECONDS);
    scheduler = started;
  }

  /** Stops the runs, interrupting one in progress. */
  public void stop() {
    ScheduledExecutorService running = scheduler;
    scheduler = null;
    if (running != null) {
      running.shutdownNow();
    }
  }

  /** Whether the runs are started. */
  public boolean isRunning() {
    return scheduler != null;
  }
}
