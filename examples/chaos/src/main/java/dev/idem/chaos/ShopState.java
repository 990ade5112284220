package dev.idem.chaos;

import java.util.List;
import java.util.Map;

/**
 * What the shop says after the load, for {@link Verdict} to compare with the {@link Ledger}.
 *
 * @param answeredOrders every order number the tool was answered 2xx for, with its status as {@code
 *     GET /api/orders/{orderNo}} shows it; absent when that answered 404 (a lost order)
 * @param ordersOfUsers every order number of the tool's users ({@code GET /api/orders} per user),
 *     to find orders no key of the tool explains
 * @param auditViolations the audit's violation lines (as admin)
 * @param counts the audit's counts ({@code orders}, {@code paidOrders}, ...)
 * @param pendingMessages event publications not completed when the audit was taken
 * @param pendingPoints paid orders still waiting for their points when the audit was taken
 */
public record ShopState(
    Map<String, String> answeredOrders,
    List<String> ordersOfUsers,
    List<String> auditViolations,
    Map<String, Long> counts,
    long pendingMessages,
    long pendingPoints) {

  public ShopState {
    answeredOrders = Map.copyOf(answeredOrders);
    ordersOfUsers = List.copyOf(ordersOfUsers);
    auditViolations = List.copyOf(auditViolations);
    counts = Map.copyOf(counts);
  }
}
