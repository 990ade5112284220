package dev.idem.core.internal;

/**
 * A bound on how fast something may be handed out across all callers of one process: a bucket of
 * {@code perSecond} permits, refilled continuously. Time is the monotonic {@link
 * System#nanoTime()}, which only measures the gaps between calls. Thread-safe.
 */
public final class IssueBudget {

  private final double perSecond;
  private double permits;
  private long last;

  /**
   * @param perSecond the most handed out in a second, and at once; at least 1
   */
  public IssueBudget(int perSecond) {
    if (perSecond < 1) {
      throw new IllegalArgumentException("perSecond must be at least 1, was " + perSecond);
    }
    this.perSecond = perSecond;
    this.permits = perSecond;
    this.last = System.nanoTime();
  }

  /** Takes one permit; false when none is left. */
  public synchronized boolean take() {
    long now = System.nanoTime();
    permits = Math.min(perSecond, permits + (now - last) * perSecond / 1e9);
    last = now;
    if (permits < 1) {
      return false;
    }
    permits -= 1;
    return true;
  }
}
