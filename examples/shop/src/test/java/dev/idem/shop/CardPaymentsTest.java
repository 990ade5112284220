package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.shop.ShopClient.Answer;
import dev.idem.shop.gateway.Behaviour;
import dev.idem.shop.gateway.Behaviour.Callback;
import dev.idem.shop.gateway.FakeGateway;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Card payments over HTTP, whatever the wallet's mode (so not run again by the wallet suites):
 * concurrency, the gateway's lost answers and callbacks, the completer, the journal, and a payment
 * the version before steps left PROCESSING.
 */
class CardPaymentsTest extends EndToEnd {

  @Autowired FakeGateway gateway;
  @Autowired ShopProperties properties;

  @Test
  void tenConcurrentCardPaymentsWithDifferentKeysChargeTheOrderOnce() throws Exception {
    String orderNo = alice.order("BOOK", 1);
    List<Answer> answers = OrdersTest.concurrently(10, () -> alice.pay(orderNo, "CARD", key()));

    List<Answer> succeeded = answers.stream().filter(a -> a.status() < 300).toList();
    assertThat(succeeded).isNotEmpty();
    assertThat(succeeded).extracting(a -> a.text("status")).containsOnly("SUCCESS");
    assertThat(succeeded).extracting(a -> a.text("paymentNo")).containsOnly(paymentNoOf(orderNo));
    // Requests that found the payment open drove it on (2xx); later ones found the order paid.
    assertThat(answers)
        .filteredOn(a -> a.status() >= 300)
        .extracting(Answer::status)
        .allMatch(status -> status == 409);
    assertThat(charges(orderNo)).isEqualTo(1);
    assertThat(alice.get("/api/orders/" + orderNo).text("status")).isEqualTo("PAID");
  }

  @Test
  void aGatewayTimeoutThenARetryWithTheSameKeyChargesOnce() {
    String orderNo = alice.order("STICKER", 3);
    String key = key();
    gateway.script(Behaviour.approve().timingOut().callback(Callback.NONE, 0));

    Answer lost = alice.pay(orderNo, "CARD", key);
    assertThat(lost.status()).isEqualTo(504);
    assertThat(lost.text("type")).isEqualTo("urn:shop:problem:gateway-timeout");
    assertThat(alice.get("/api/orders/" + orderNo).text("status")).isEqualTo("CREATED");

    Answer retry = alice.pay(orderNo, "CARD", key);
    assertThat(retry.status()).isEqualTo(200);
    assertThat(retry.text("status")).isEqualTo("SUCCESS");
    assertThat(retry.text("paymentNo")).isEqualTo(lost.text("paymentNo"));
    assertThat(charges(orderNo)).isEqualTo(1);
  }

  @Test
  void aTimedOutPaymentWhoseClientNeverComesBackIsFinishedByTheCompleterWithOneCharge() {
    String orderNo = alice.order("STICKER", 4);
    String key = key();
    gateway.script(Behaviour.approve().timingOut().callback(Callback.NONE, 0));

    Answer lost = alice.pay(orderNo, "CARD", key);
    assertThat(lost.status()).isEqualTo(504);

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> alice.get("/api/orders/" + orderNo).text("status"), "PAID"::equals);
    assertThat(charges(orderNo)).isEqualTo(1);
    // Asked twice (the lost answer, the completer's run), under one key: the step's, derived
    assertThat(count("SELECT COUNT(*) FROM gateway_requests WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    assertThat(
            jdbc.queryForObject(
                "SELECT request_key FROM gateway_requests WHERE order_no = ?",
                String.class,
                orderNo))
        .matches("[0-9a-f]{64}");
    assertThat(events(orderNo)).isEqualTo(1);
    // The client's repeat, late, finds its payment done: the order paid, under that payment.
    Answer late = alice.pay(orderNo, "CARD", key);
    assertThat(late.status()).isEqualTo(409);
    assertThat(late.text("type")).isEqualTo("urn:shop:problem:order-paid");
    assertThat(late.text("paymentNo")).isEqualTo(lost.text("paymentNo"));
    assertThat(charges(orderNo)).isEqualTo(1);
    // the completer writes the flow's end in its journal after the order is paid
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> steps(alice, lost.text("paymentNo")), s -> s.contains("ended SUCCESS"));
    assertThat(steps(alice, lost.text("paymentNo")))
        .containsSubsequence(
            "a payment request runs the flow",
            "charge: the gateway's answer was lost; the step stored nothing",
            "stopped (GatewayTimeoutException): the flow runs again, from its steps",
            "the completer runs the flow",
            "charge: the gateway answered APPROVED; stored as the step's",
            "ended SUCCESS");
    assertThat(steps(bob, lost.text("paymentNo"))).as("another shopper's payment").isNull();
  }

  @Test
  void aChargedCardWhoseSettlementFailedIsSettledFromItsStoredChargeWithoutAskingTheGatewayAgain() {
    String orderNo = alice.order("STICKER", 2);
    String poison = refusePaid(orderNo);

    Answer failed = alice.pay(orderNo, "CARD", key());
    String paymentNo = openPaymentOf(orderNo);
    jdbc.execute("ALTER TABLE orders DROP CONSTRAINT " + poison);

    assertThat(failed.status()).isGreaterThanOrEqualTo(500);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> alice.get("/api/orders/" + orderNo).text("status"), "PAID"::equals);
    assertThat(charges(orderNo)).isEqualTo(1);
    assertThat(events(orderNo)).isEqualTo(1);
    // the completer writes the flow's end in its journal after the order is paid
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> steps(alice, paymentNo), s -> s.contains("ended SUCCESS"));
    List<String> steps = steps(alice, paymentNo);
    assertThat(steps)
        .containsSubsequence(
            "a payment request runs the flow",
            "charge: the gateway answered APPROVED; stored as the step's",
            "stopped (DataIntegrityViolationException): the flow runs again, from its steps",
            "the completer runs the flow",
            "charge: its stored outcome came back; the gateway was not asked again",
            "ended SUCCESS");
    assertThat(steps).filteredOn(s -> s.startsWith("charge: the gateway answered")).hasSize(1);
  }

  @Test
  void aCallbackBeforeTheAnswerRepeatedChangesNothingMore() {
    String orderNo = alice.order("STICKER", 5);
    gateway.script(Behaviour.approve().callback(Callback.BEFORE_ANSWER, 3));

    Answer paid = alice.pay(orderNo, "CARD", key());

    assertThat(gateway.callbacksAnswered(paid.text("paymentNo"))).isEqualTo(3);
    assertThat(paid.status()).isEqualTo(201);
    assertThat(paid.text("status")).isEqualTo("SUCCESS");
    assertThat(events(orderNo)).isEqualTo(1);
  }

  @Test
  void callbacksAfterTheAnswerAndRepeatedByHandChangeNothing() {
    String orderNo = alice.order("STICKER", 6);
    gateway.script(Behaviour.approve().callback(Callback.AFTER_ANSWER, 3));

    Answer paid = alice.pay(orderNo, "CARD", key());
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> gateway.callbacksAnswered(paid.text("paymentNo")) == 3);
    Answer late = notice(paid.text("paymentNo"), "FAILED", secret());

    assertThat(paid.text("status")).isEqualTo("SUCCESS");
    assertThat(late.status()).isEqualTo(200);
    assertThat(late.text("status")).isEqualTo("SUCCESS");
    assertThat(events(orderNo)).isEqualTo(1);
    assertThat(notice(paid.text("paymentNo"), "SUCCESS", "wrong").status()).isEqualTo(401);
    assertThat(notice("PAY-none", "SUCCESS", secret()).status()).isEqualTo(404);
    assertThat(notice(paid.text("paymentNo"), "PAID", secret()).status()).isEqualTo(400);
  }

  @Test
  void aForgedSuccessCallbackForACardTheGatewayDeclinedSettlesItFailed() {
    String orderNo = alice.order("STICKER", 2);
    // Declined at the gateway, the answer lost and no callback: the payment waits in PROCESSING.
    gateway.script(Behaviour.approve().declined().timingOut().callback(Callback.NONE, 0));
    Answer lost = alice.pay(orderNo, "CARD", key());
    assertThat(lost.status()).isEqualTo(504);

    Answer forged = notice(lost.text("paymentNo"), "SUCCESS", secret());

    assertThat(forged.status()).isEqualTo(200);
    assertThat(forged.text("status")).isEqualTo("FAILED");
    assertThat(alice.get("/api/orders/" + orderNo).text("status")).isEqualTo("CREATED");
    assertThat(events(orderNo)).isZero();
  }

  @Test
  void aCallbackSettlesACardFromWhatTheGatewaySaysNotFromItsBody() {
    String orderNo = alice.order("STICKER", 3);
    gateway.script(Behaviour.approve().timingOut().callback(Callback.NONE, 0));
    Answer lost = alice.pay(orderNo, "CARD", key());

    Answer callback = notice(lost.text("paymentNo"), "FAILED", secret());

    assertThat(callback.text("status")).isEqualTo("SUCCESS");
    assertThat(alice.get("/api/orders/" + orderNo).text("status")).isEqualTo("PAID");
  }

  @Test
  void aForgedSuccessCallbackForAWalletPaymentChangesNothing() {
    String orderNo = alice.order("STICKER", 4);
    String paymentNo = "PAY-wallet-" + key().substring(0, 8);
    // A wallet payment caught in PROCESSING with no flow to finish it: only the callback could
    // move it.
    insertWalletProcessing(paymentNo, orderNo, "alice", "4.00");
    BigDecimal before = balance(alice);

    Answer forged = notice(paymentNo, "SUCCESS", secret());

    assertThat(forged.status()).isEqualTo(200);
    assertThat(forged.text("status")).isNotEqualTo("SUCCESS");
    assertThat(alice.get("/api/orders/" + orderNo).text("status")).isEqualTo("CREATED");
    assertThat(balance(alice)).isEqualByComparingTo(before);
    assertThat(events(orderNo)).isZero();
  }

  @Test
  void aCardPaymentTheVersionBeforeStepsLeftChargedIsAskedAgainUnderItsPaymentNumberNotANewKey() {
    String orderNo = alice.order("STICKER", 1);
    String paymentNo = "PAY-earlier-" + key().substring(0, 8);
    // As the upgrade leaves it: charged under its payment number, PROCESSING, its key noted.
    jdbc.update(
        "INSERT INTO payment_records (payment_no, order_no, active_order_no, username, method,"
            + " amount, status, gateway_key) VALUES (?, ?, ?, 'alice', 'CARD', 2.00, 'PROCESSING',"
            + " ?)",
        paymentNo,
        orderNo,
        orderNo,
        paymentNo);
    jdbc.update(
        "INSERT INTO gateway_requests (request_key, payment_no, order_no, amount, outcome)"
            + " VALUES (?, ?, ?, 2.00, 'APPROVED')",
        paymentNo,
        paymentNo,
        orderNo);

    Answer again = alice.pay(orderNo, "CARD", key());

    assertThat(again.status()).isEqualTo(200);
    assertThat(again.text("paymentNo")).isEqualTo(paymentNo);
    assertThat(again.text("status")).isEqualTo("SUCCESS");
    assertThat(count("SELECT COUNT(*) FROM gateway_requests WHERE order_no = ?", orderNo))
        .isEqualTo(1);
  }

  @Test
  void aConflictIsAnsweredButNotStoredSoTheSameKeyAsksAgain() {
    String orderNo = alice.order("STICKER", 1);
    alice.pay(orderNo, "CARD", key());
    String key = key();

    Answer conflict = alice.pay(orderNo, "CARD", key);
    Answer again = alice.pay(orderNo, "CARD", key);

    assertThat(conflict.status()).isEqualTo(409);
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.replayed()).isFalse();
  }

  @Test
  void aDeclinedCardLeavesTheOrderOpenForAnotherPayment() {
    String orderNo = alice.order("STICKER", 8);
    gateway.script(Behaviour.approve().declined());

    Answer declined = alice.pay(orderNo, "CARD", key());
    Answer paid = alice.pay(orderNo, "CARD", key());

    assertThat(declined.text("status")).isEqualTo("FAILED");
    assertThat(paid.text("status")).isEqualTo("SUCCESS");
    assertThat(paid.text("paymentNo")).isNotEqualTo(declined.text("paymentNo"));
    assertThat(charges(orderNo)).isEqualTo(1);
  }

  /** The journal of the payment as the page gets it, or null when the shopper does not see it. */
  private static List<String> steps(ShopClient client, String paymentNo) {
    for (JsonNode payment : client.get("/api/payments/steps").json()) {
      if (payment.path("paymentNo").asString().equals(paymentNo)) {
        List<String> steps = new ArrayList<>();
        payment.path("steps").forEach(step -> steps.add(step.asString()));
        return steps;
      }
    }
    return null;
  }

  private String secret() {
    return properties.gateway().secret();
  }

  private Answer notice(String paymentNo, String status, String secret) {
    return alice.post(
        "/api/payments/notify",
        "{\"paymentNo\":\"" + paymentNo + "\",\"status\":\"" + status + "\"}",
        "X-Gateway-Secret",
        secret);
  }

  private String paymentNoOf(String orderNo) {
    return jdbc.queryForObject(
        "SELECT payment_no FROM payment_records WHERE order_no = ? AND status = 'SUCCESS'",
        String.class,
        orderNo);
  }
}
