package dev.idem.core.retry;

import dev.idem.core.IdempotencyException;

/**
 * Thrown by {@link OptimisticRetry#execute(Attempt)} when every attempt lost its race. No update
 * took effect. A caller that sees this often has a hot row: more attempts only add load, while
 * serializing writers to that row, or a single conditional update, removes the contention.
 */
public class OptimisticRetryExhaustedException extends IdempotencyException {

  private final int attempts;

  /** Creates the exception for {@code attempts} attempts that all lost. */
  public OptimisticRetryExhaustedException(int attempts) {
    super("Optimistic update lost the race on all " + attempts + " attempts");
    this.attempts = attempts;
  }

  /** Returns how many attempts were made, all of them without effect. */
  public int attempts() {
    return attempts;
  }
}
