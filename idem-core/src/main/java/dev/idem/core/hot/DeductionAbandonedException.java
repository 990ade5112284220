package dev.idem.core.hot;

/**
 * The caller stopped waiting for its deduction: its wait ran out ({@link
 * HotAccountConfig#maxWait()}) or its thread was interrupted (the interrupt flag is set again).
 * When {@link #mayHaveApplied()} is false the deduction was taken off the queue and will never be
 * applied. When it is true the deduction was already in a batch being applied: its outcome is
 * unknown, and a repeat with the same request id finds out safely (it is {@link
 * DeductionResult#DUPLICATE} if the first was applied).
 */
public class DeductionAbandonedException extends HotAccountException {

  private final boolean mayHaveApplied;
  private final boolean interrupted;

  public DeductionAbandonedException(
      String requestId, boolean mayHaveApplied, boolean interrupted) {
    super(
        "stopped waiting for deduction "
            + requestId
            + (interrupted ? " (interrupted)" : " (timed out)")
            + (mayHaveApplied ? "; it may have been applied" : "; it was not applied"),
        false);
    this.mayHaveApplied = mayHaveApplied;
    this.interrupted = interrupted;
  }

  /** True when the deduction was being applied as the caller gave up, so its outcome is unknown. */
  public boolean mayHaveApplied() {
    return mayHaveApplied;
  }

  /** True when an interrupt ended the wait, false when the time ran out. */
  public boolean interrupted() {
    return interrupted;
  }
}
