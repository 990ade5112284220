package dev.idem.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idem.async.*} properties: the threads that make the store's calls for
 * {@code @Idempotent} methods returning a {@code CompletableFuture}, {@code Mono} or {@code Flux},
 * and the most elements a {@code Flux} answer keeps.
 */
@ConfigurationProperties("idem.async")
public class IdemAsyncProperties {

  /** Threads that make the store's calls (claim, complete, release), which may block. */
  private int threads = 16;

  /** Store calls that may wait for a thread; one more is refused with a clear error. */
  private int queueCapacity = 10_000;

  /**
   * The most elements a {@code Flux} answer keeps for its repeats. A longer one still runs to its
   * end, once; its caller gets an {@code OutcomeTooLargeException} and repeats an {@code
   * OutcomeNotReplayableException}.
   */
  private int maxElements = 10_000;

  public int getThreads() {
    return threads;
  }

  public void setThreads(int threads) {
    this.threads = threads;
  }

  public int getQueueCapacity() {
    return queueCapacity;
  }

  public void setQueueCapacity(int queueCapacity) {
    this.queueCapacity = queueCapacity;
  }

  public int getMaxElements() {
    return maxElements;
  }

  public void setMaxElements(int maxElements) {
    this.maxElements = maxElements;
  }
}
