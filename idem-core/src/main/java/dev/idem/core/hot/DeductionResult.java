package dev.idem.core.hot;

/** What became of one {@link Deduction}. Each is a final answer; none is worth retrying as is. */
public enum DeductionResult {
  /** Debited now, and recorded under its request id. */
  APPLIED,
  /** Not debited: the balance, after the deductions before it, was below the amount. */
  INSUFFICIENT_FUNDS,
  /** Not debited now: a deduction with the same request id was debited before. */
  DUPLICATE,
  /** Not debited: there is no such account. */
  UNKNOWN_ACCOUNT
}
