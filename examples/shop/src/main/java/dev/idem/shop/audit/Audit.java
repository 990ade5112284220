package dev.idem.shop.audit;

import dev.idem.shop.ShopProperties;
import dev.idem.shop.internal.DatabaseClock;
import dev.idem.shop.messaging.PaymentSucceeded;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/**
 * Checks the shop's invariants (docs/shop.md) with one query each: every row a query returns is a
 * violation. Reads outside a transaction, so a check taken while payments run may see one half of a
 * commit; run it when the shop is quiet to get a verdict.
 */
@Service
public class Audit {

  // the payment's own event among the registry's publications (its JSON names the payment); the
  // table's name in capitals, as Modulith makes it on MariaDB, where table names keep their case
  private static final String EVENT_OF_PAYMENT =
      "e.event_type = '"
          + PaymentSucceeded.class.getName()
          + "' AND e.serialized_event LIKE CONCAT('%\"paymentNo\":\"', p.payment_no, '\"%')";
  private static final String POINTS_LATE = "loyalty points missing for an order paid long ago";
  // Of a ledger row l: its payment number is not written yet and its order's wallet payment is
  // still PROCESSING (the hot wallet committed the debit, the payment's commit is still to come).
  private static final String DEBIT_IN_FLIGHT =
      "l.payment_no IS NULL AND EXISTS (SELECT 1 FROM payment_records p WHERE p.order_no ="
          + " l.order_no AND p.method = 'WALLET' AND p.status = 'PROCESSING')";

  private final JdbcTemplate jdbc;
  private final Map<String, String> checks;

  Audit(JdbcTemplate jdbc, DatabaseClock clock, ShopProperties properties) {
    this.jdbc = jdbc;
    this.checks = checks();
    // Points are on their way for a while after the payment (relay, broker); past the deadline
    // the event is lost.
    this.checks.put(
        POINTS_LATE,
        "SELECT o.order_no FROM orders o WHERE o.status = 'PAID' AND o.paid_at < "
            + clock.ago(properties.audit().pointsWithin())
            + " AND NOT EXISTS (SELECT 1 FROM loyalty_points l WHERE l.order_no = o.order_no)");
  }

  /** Runs every check. */
  public AuditReport report() {
    List<AuditReport.Invariant> invariants = new ArrayList<>();
    List<String> violations = new ArrayList<>();
    checks.forEach(
        (name, sql) -> {
          List<String> rows = jdbc.queryForList(sql, String.class);
          invariants.add(new AuditReport.Invariant(name, rows.size()));
          rows.forEach(row -> violations.add(name + ": " + row));
        });
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("orders", count("SELECT COUNT(*) FROM orders"));
    counts.put("paidOrders", count("SELECT COUNT(*) FROM orders WHERE status = 'PAID'"));
    counts.put("payments", count("SELECT COUNT(*) FROM payment_records"));
    counts.put(
        "gatewayCharges",
        count("SELECT COUNT(*) FROM gateway_requests WHERE outcome = 'APPROVED'"));
    counts.put("walletDebits", count("SELECT COUNT(*) FROM wallet_ledger"));
    counts.put("loyaltyEntries", count("SELECT COUNT(*) FROM loyalty_points"));
    long pendingMessages =
        count("SELECT COUNT(*) FROM EVENT_PUBLICATION WHERE completion_date IS NULL");
    long pendingPoints =
        count(
            "SELECT COUNT(*) FROM orders o WHERE o.status = 'PAID' AND NOT EXISTS"
                + " (SELECT 1 FROM loyalty_points l WHERE l.order_no = o.order_no)");
    long pendingDebits = count("SELECT COUNT(*) FROM wallet_ledger l WHERE " + DEBIT_IN_FLIGHT);
    return new AuditReport(
        violations.isEmpty(),
        List.copyOf(invariants),
        List.copyOf(violations),
        counts,
        pendingMessages,
        pendingPoints,
        pendingDebits);
  }

  private long count(String sql) {
    Long n = jdbc.queryForObject(sql, Long.class);
    return n == null ? 0 : n;
  }

  private static Map<String, String> checks() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put(
        "order with more than one successful payment",
        "SELECT order_no FROM payment_records WHERE status = 'SUCCESS'"
            + " GROUP BY order_no HAVING COUNT(*) > 1");
    c.put(
        "order charged more than once at the gateway",
        "SELECT order_no FROM gateway_requests WHERE outcome = 'APPROVED'"
            + " GROUP BY order_no HAVING COUNT(*) > 1");
    c.put(
        "paid order without a successful payment",
        "SELECT o.order_no FROM orders o WHERE o.status = 'PAID' AND NOT EXISTS (SELECT 1 FROM"
            + " payment_records p WHERE p.order_no = o.order_no AND p.status = 'SUCCESS')");
    c.put(
        "successful payment of an unpaid order",
        "SELECT p.payment_no FROM payment_records p JOIN orders o ON o.order_no = p.order_no"
            + " WHERE p.status = 'SUCCESS' AND o.status <> 'PAID'");
    c.put(
        "money taken by the gateway for a payment that failed",
        "SELECT g.payment_no FROM gateway_requests g JOIN payment_records p"
            + " ON p.payment_no = g.payment_no WHERE g.outcome = 'APPROVED' AND p.status = 'FAILED'");
    c.put(
        "successful card payment without its gateway charge",
        "SELECT p.payment_no FROM payment_records p WHERE p.method = 'CARD' AND p.status ="
            + " 'SUCCESS' AND NOT EXISTS (SELECT 1 FROM gateway_requests g WHERE g.payment_no ="
            + " p.payment_no AND g.outcome = 'APPROVED')");
    c.put(
        "wallet balance differs from its ledger",
        "SELECT a.username FROM accounts a WHERE a.initial_balance - a.balance <> COALESCE((SELECT"
            + " SUM(l.amount) FROM wallet_ledger l WHERE l.username = a.username), 0)");
    // A row without its payment number whose order has a wallet payment still PROCESSING is a
    // hot-mode debit between its two commits: pending (DEBIT_IN_FLIGHT), not a violation.
    c.put(
        "wallet debit without a successful wallet payment",
        "SELECT l.order_no FROM wallet_ledger l WHERE NOT EXISTS (SELECT 1 FROM payment_records p"
            + " WHERE p.payment_no = l.payment_no AND p.method = 'WALLET' AND p.status ="
            + " 'SUCCESS') AND NOT ("
            + DEBIT_IN_FLIGHT
            + ")");
    c.put(
        "successful wallet payment without its debit",
        "SELECT p.payment_no FROM payment_records p WHERE p.method = 'WALLET' AND p.status ="
            + " 'SUCCESS' AND NOT EXISTS (SELECT 1 FROM wallet_ledger l WHERE l.payment_no ="
            + " p.payment_no)");
    c.put(
        "stock differs from initial stock minus deductions",
        "SELECT p.sku FROM products p WHERE p.stock <> p.initial_stock - COALESCE((SELECT"
            + " SUM(d.quantity) FROM stock_deductions d WHERE d.sku = p.sku), 0)");
    c.put(
        "order line without its stock deduction",
        "SELECT i.order_no FROM order_items i WHERE NOT EXISTS (SELECT 1 FROM stock_deductions d"
            + " WHERE d.order_no = i.order_no AND d.sku = i.sku AND d.quantity = i.quantity)");
    c.put(
        "order without lines",
        "SELECT o.order_no FROM orders o WHERE NOT EXISTS"
            + " (SELECT 1 FROM order_items i WHERE i.order_no = o.order_no)");
    c.put(
        "successful payment without its event",
        "SELECT p.payment_no FROM payment_records p WHERE p.status = 'SUCCESS' AND NOT EXISTS"
            + " (SELECT 1 FROM EVENT_PUBLICATION e WHERE "
            + EVENT_OF_PAYMENT
            + ")");
    c.put(
        "event of a payment that did not succeed",
        "SELECT e.serialized_event FROM EVENT_PUBLICATION e WHERE e.event_type = '"
            + PaymentSucceeded.class.getName()
            + "' AND NOT EXISTS (SELECT 1 FROM payment_records p WHERE p.status = 'SUCCESS' AND "
            + EVENT_OF_PAYMENT
            + ")");
    c.put(
        "loyalty points given more than once for an order",
        "SELECT order_no FROM loyalty_points GROUP BY order_no HAVING COUNT(*) > 1");
    c.put(
        "loyalty points for an unpaid order",
        "SELECT l.order_no FROM loyalty_points l JOIN orders o ON o.order_no = l.order_no"
            + " WHERE o.status <> 'PAID'");
    return c;
  }
}
