package dev.idem.spring;

import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.thread.Threading;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * The threads Idem starts in an application (the store's calls for asynchronous work, the lease
 * watchdog, the purge of expired records): virtual threads when the application runs on them
 * ({@code spring.threads.virtual.enabled} on Java 21 or later), else daemon platform threads. Who
 * asks for a thread names it.
 */
public final class IdemThreads implements ThreadFactory {

  private final @Nullable ThreadFactory virtual;

  private IdemThreads(@Nullable ThreadFactory virtual) {
    this.virtual = virtual;
  }

  /** The threads {@code environment} asks for. */
  public static IdemThreads of(Environment environment) {
    return Threading.VIRTUAL.isActive(environment)
        ? new IdemThreads(new VirtualThreadTaskExecutor("idem-").getVirtualThreadFactory())
        : platform();
  }

  /** Daemon platform threads. */
  public static IdemThreads platform() {
    return new IdemThreads(null);
  }

  /** Whether the threads made are virtual. */
  public boolean virtual() {
    return virtual != null;
  }

  @Override
  public Thread newThread(Runnable task) {
    if (virtual != null) {
      return virtual.newThread(task);
    }
    Thread thread = new Thread(task);
    thread.setDaemon(true);
    return thread;
  }
}
