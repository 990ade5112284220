package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.shop.ShopClient.Answer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Each invariant the audit checks fires when the data is broken by hand; every test repairs what it
 * broke, so the audit after it is ok again.
 */
class AuditTest extends EndToEnd {

  @Test
  void anEventThatNamesAnotherPaymentBreaksBothEventChecks() {
    String orderNo = alice.order("STICKER", 1);
    String paymentNo = alice.pay(orderNo, "WALLET", key()).text("paymentNo");
    // Delivered first, so that putting the publication back afterwards loses nothing.
    awaitPoints(orderNo);
    String never = "PAY-never-" + key().substring(0, 8);
    String rename =
        "UPDATE EVENT_PUBLICATION SET serialized_event = REPLACE(serialized_event, ?, ?)"
            + " WHERE serialized_event LIKE ?";

    jdbc.update(rename, paymentNo, never, "%" + paymentNo + "%");
    JsonNode broken = admin.get("/api/audit").json();
    jdbc.update(rename, never, paymentNo, "%" + never + "%");

    assertBroken(broken, "successful payment without its event", paymentNo);
    // the row is the event as the registry keeps it, which names the payment
    assertThat(invariant(broken, "event of a payment that did not succeed")).isEqualTo(1);
    assertThat(broken.path("violations").toString())
        .contains("event of a payment that did not succeed: {")
        .contains(never);
  }

  @Test
  void pointsStillMissingLongAfterThePaymentAreAViolationAndNotBefore() {
    String orderNo = alice.order("STICKER", 2);
    alice.pay(orderNo, "WALLET", key());
    awaitPoints(orderNo);
    String name = "loyalty points missing for an order paid long ago";

    jdbc.update("UPDATE loyalty_points SET order_no = 'moved' WHERE order_no = ?", orderNo);
    JsonNode recent = admin.get("/api/audit").json();
    jdbc.update(
        "UPDATE orders SET paid_at = TIMESTAMP '2000-01-01 00:00:00' WHERE order_no = ?", orderNo);
    JsonNode late = admin.get("/api/audit").json();
    jdbc.update("UPDATE loyalty_points SET order_no = ? WHERE order_no = 'moved'", orderNo);

    assertThat(recent.path("violations").toString()).doesNotContain(name);
    assertThat(recent.path("pendingPoints").asLong()).isPositive();
    assertBroken(late, name, orderNo);
  }

  @Test
  void stockThatDiffersFromItsDeductionsIsAViolation() {
    jdbc.update("UPDATE products SET stock = stock - 1 WHERE sku = 'MUG'");
    JsonNode broken = admin.get("/api/audit").json();
    jdbc.update("UPDATE products SET stock = stock + 1 WHERE sku = 'MUG'");

    assertBroken(broken, "stock differs from initial stock minus deductions", "MUG");
  }

  @Test
  void aCustomerSeesTheVerdictNamesAndCountsButNoRows() {
    jdbc.update("UPDATE products SET stock = stock - 1 WHERE sku = 'MUG'");
    Answer customer = bob.get("/api/audit");
    Answer administrator = admin.get("/api/audit");
    jdbc.update("UPDATE products SET stock = stock + 1 WHERE sku = 'MUG'");

    assertThat(customer.status()).isEqualTo(200);
    assertThat(customer.json().path("ok").asBoolean()).isFalse();
    assertThat(customer.json().has("violations")).isFalse();
    assertThat(customer.body()).doesNotContain("MUG");
    assertThat(invariant(customer.json(), "stock differs from initial stock minus deductions"))
        .isEqualTo(1);
    assertThat(administrator.json().path("violations").toString()).contains("MUG");
  }

  private void awaitPoints(String orderNo) {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> count("SELECT COUNT(*) FROM loyalty_points WHERE order_no = ?", orderNo) == 1);
  }

  @Test
  void aWalletDebitWhosePaymentIsStillProcessingIsPendingAndAViolationOnceThePaymentFailed() {
    String orderNo = alice.order("STICKER", 1);
    String paymentNo = "PAY-between-" + key().substring(0, 8);
    String name = "wallet debit without a successful wallet payment";
    // A hot-mode payment between its two commits: the debit and its ledger row (no payment number
    // yet) are in, the payment is PROCESSING; no flow of it is left for the completer to finish.
    jdbc.update(
        "INSERT INTO payment_records (payment_no, order_no, active_order_no, username, method,"
            + " amount, status, processing_since) VALUES (?, ?, ?, 'alice', 'WALLET', 2.00,"
            + " 'PROCESSING', TIMESTAMP '2037-01-01 00:00:00')",
        paymentNo,
        orderNo,
        orderNo);
    jdbc.update(
        "UPDATE accounts SET balance = balance - 2.00, version = version + 1"
            + " WHERE username = 'alice'");
    jdbc.update(
        "INSERT INTO wallet_ledger (order_no, username, amount) VALUES (?, 'alice', 2.00)",
        orderNo);
    JsonNode between = admin.get("/api/audit").json();
    jdbc.update(
        "UPDATE payment_records SET status = 'FAILED', active_order_no = NULL"
            + " WHERE payment_no = ?",
        paymentNo);
    JsonNode failed = admin.get("/api/audit").json();
    jdbc.update("DELETE FROM wallet_ledger WHERE order_no = ?", orderNo);
    jdbc.update(
        "UPDATE accounts SET balance = balance + 2.00, version = version + 1"
            + " WHERE username = 'alice'");

    assertThat(between.path("violations").toString()).isEqualTo("[]");
    assertThat(between.path("pendingDebits").asLong()).isEqualTo(1);
    assertBroken(failed, name, orderNo);
    assertThat(failed.path("pendingDebits").asLong()).isZero();
  }

  private static void assertBroken(JsonNode report, String name, String row) {
    assertThat(report.path("ok").asBoolean()).isFalse();
    assertThat(report.path("violations").toString()).contains(name + ": " + row);
    assertThat(invariant(report, name)).isPositive();
  }

  private static long invariant(JsonNode report, String name) {
    for (JsonNode invariant : report.path("invariants")) {
      if (invariant.path("name").asString().equals(name)) {
        return invariant.path("violations").asLong();
      }
    }
    throw new AssertionError("no invariant " + name + " in " + report);
  }
}
