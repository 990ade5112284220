package dev.idem.shop.audit;

import java.util.List;
import java.util.Map;

/**
 * The invariants, checked against the database.
 *
 * @param ok true when no invariant is broken
 * @param violations one line per broken invariant and row
 * @param counts totals, for a person to read
 * @param pendingMessages outbox rows not relayed yet (not a violation: they are on their way)
 * @param pendingPoints paid orders whose points have not arrived yet (likewise)
 */
public record AuditReport(
    boolean ok,
    List<String> violations,
    Map<String, Long> counts,
    long pendingMessages,
    long pendingPoints) {}
