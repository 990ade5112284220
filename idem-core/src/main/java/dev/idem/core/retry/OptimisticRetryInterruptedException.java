package dev.idem.core.retry;

import dev.idem.core.IdempotencyException;

/**
 * Thrown by {@link OptimisticRetry#execute(Attempt)} when the thread is interrupted while backing
 * off. No update took effect, and the thread's interrupt flag is set again before this is thrown so
 * that code further up still sees the interrupt.
 */
public class OptimisticRetryInterruptedException extends IdempotencyException {

  private final int attempts;

  /**
   * Creates the exception after {@code attempts} attempts that all lost, caused by {@code cause}.
   */
  public OptimisticRetryInterruptedException(int attempts, InterruptedException cause) {
    super("Interrupted while backing off after " + attempts + " lost attempts", cause);
    this.attempts = attempts;
  }

  /** Returns how many attempts were made before the interrupt, all of them without effect. */
  public int attempts() {
    return attempts;
  }
}
