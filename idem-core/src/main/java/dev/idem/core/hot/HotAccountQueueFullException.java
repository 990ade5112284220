package dev.idem.core.hot;

/**
 * The account already had {@link HotAccountConfig#maxQueueSize()} deductions waiting; this one was
 * refused at once and not queued, so nothing of it was applied. Back-pressure: retry later (HTTP
 * 503 with {@code Retry-After}).
 */
public class HotAccountQueueFullException extends HotAccountException {

  public HotAccountQueueFullException(Object account, int maxQueueSize) {
    super("account " + account + " has " + maxQueueSize + " deductions waiting already", false);
  }
}
