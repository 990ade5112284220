package dev.idem.core.hot;

import java.math.BigDecimal;

/**
 * One debit asked of an account.
 *
 * @param requestId what makes the debit unique, such as an order or payment number: a repeat with
 *     the same id is never debited twice. 1 to 255 characters.
 * @param amount how much to debit; positive
 */
public record Deduction(String requestId, BigDecimal amount) {

  /** The longest request id accepted, as long as an idempotency key. */
  public static final int MAX_REQUEST_ID_LENGTH = 255;

  /**
   * @throws IllegalArgumentException when the request id is null, empty or too long, or the amount
   *     is null or not positive
   */
  public Deduction {
    if (requestId == null || requestId.isEmpty() || requestId.length() > MAX_REQUEST_ID_LENGTH) {
      throw new IllegalArgumentException(
          "requestId must be 1.." + MAX_REQUEST_ID_LENGTH + " characters, was " + requestId);
    }
    if (amount == null || amount.signum() <= 0) {
      throw new IllegalArgumentException("amount must be positive, was " + amount);
    }
  }
}
