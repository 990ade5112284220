package dev.idem.shop.audit;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * The invariants, checked against the database.
 *
 * @param ok true when no invariant is broken
 * @param invariants every invariant by name with its number of violations
 * @param violations one line per broken invariant and row, naming orders, payments and users; null
 *     (left out of the JSON) in the view of a customer
 * @param counts totals, for a person to read
 * @param pendingMessages event publications not completed yet (not a violation: they are on their
 *     way, and retried)
 * @param pendingPoints paid orders whose points have not arrived yet (likewise, until the deadline)
 * @param pendingDebits wallet debits made whose payment is still PROCESSING (hot modes, between the
 *     debit's commit and the payment's; likewise)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AuditReport(
    boolean ok,
    List<Invariant> invariants,
    List<String> violations,
    Map<String, Long> counts,
    long pendingMessages,
    long pendingPoints,
    long pendingDebits) {

  /**
   * One invariant.
   *
   * @param name what must hold, phrased as its violation
   * @param violations how many rows break it
   */
  public record Invariant(String name, long violations) {}

  /** The report without the rows that identify users, orders and payments. */
  public AuditReport withoutRows() {
    return new AuditReport(
        ok, invariants, null, counts, pendingMessages, pendingPoints, pendingDebits);
  }
}
