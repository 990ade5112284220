package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.shop.ShopClient.Answer;
import dev.idem.shop.gateway.Behaviour;
import dev.idem.shop.gateway.Behaviour.Callback;
import dev.idem.shop.gateway.FakeGateway;
import dev.idem.shop.payment.PaymentFlow;
import dev.idem.shop.payment.PaymentStatus;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The payment suite for what the wallet's mode changes, over HTTP: wallet payments at once, left
 * PROCESSING, failing to settle, without money or without a wallet; run again by {@code
 * PaymentsCoalesceTest} and {@code PaymentsSerializeTest}. Card payments, which no wallet mode
 * touches, are {@link CardPaymentsTest}'s.
 */
class PaymentsTest extends EndToEnd {

  @Autowired FakeGateway gateway;
  @Autowired PaymentFlow flow;

  @Test
  void tenConcurrentWalletPaymentsWithDifferentKeysDebitTheWalletOnce() throws Exception {
    String orderNo = alice.order("MUG", 2);
    BigDecimal before = balance(alice);
    List<Answer> answers = OrdersTest.concurrently(10, () -> alice.pay(orderNo, "WALLET", key()));

    assertThat(answers)
        .filteredOn(a -> a.status() < 300)
        .extracting(a -> a.text("status"))
        .containsOnly("SUCCESS");
    assertThat(balance(alice)).isEqualByComparingTo(before.subtract(new BigDecimal("19.00")));
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", orderNo))
        .isEqualTo(1);
  }

  @Test
  void aPaymentRefusedForItsBodyLeavesTheKeyFreeForTheCorrectedBody() {
    String orderNo = alice.order("STICKER", 5);
    String key = key();

    Answer refused = alice.pay(orderNo, "CASH", key);
    Answer corrected = alice.pay(orderNo, "WALLET", key);

    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.text("type")).isEqualTo("urn:shop:problem:invalid-request");
    assertThat(corrected.status()).isEqualTo(201);
    assertThat(corrected.text("status")).isEqualTo("SUCCESS");
  }

  @Test
  void aWalletPaymentLeftInProcessingAfterItsDebitIsSettledFromTheLedgerByTheNextPayment() {
    String orderNo = alice.order("STICKER", 2);
    String paymentNo = "PAY-debited-" + key().substring(0, 8);
    BigDecimal before = balance(alice);
    // A crash between the hot wallet's commit (debit and ledger row) and the payment's update,
    // left by a run the completer does not know of (the version before it, say).
    jdbc.update(
        "UPDATE accounts SET balance = balance - 4.00, version = version + 1"
            + " WHERE username = 'alice'");
    jdbc.update(
        "INSERT INTO wallet_ledger (order_no, username, amount) VALUES (?, 'alice', 4.00)",
        orderNo);
    insertWalletProcessing(paymentNo, orderNo, "alice", "4.00");

    Answer again = alice.pay(orderNo, "WALLET", key());

    assertThat(again.status()).isEqualTo(200);
    assertThat(again.text("paymentNo")).isEqualTo(paymentNo);
    assertThat(again.text("status")).isEqualTo("SUCCESS");
    assertThat(balance(alice)).isEqualByComparingTo(before.subtract(new BigDecimal("4.00")));
    assertThat(
            count(
                "SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ? AND payment_no = ?",
                orderNo,
                paymentNo))
        .isEqualTo(1);
    assertThat(alice.get("/api/orders/" + orderNo).text("status")).isEqualTo("PAID");
  }

  @Test
  void aWalletPaymentLeftInProcessingBeforeItsDebitIsDebitedOnceByItsFlow() {
    String orderNo = alice.order("STICKER", 3);
    String paymentNo = "PAY-undebited-" + key().substring(0, 8);
    BigDecimal before = balance(alice);
    insertWalletProcessing(paymentNo, orderNo, "alice", "6.00");

    assertThat(flow.complete(paymentNo)).isEqualTo(PaymentStatus.SUCCESS);
    assertThat(flow.complete(paymentNo)).isEqualTo(PaymentStatus.SUCCESS);
    Answer retry = alice.pay(orderNo, "WALLET", key());

    assertThat(retry.status()).isEqualTo(409);
    assertThat(balance(alice)).isEqualByComparingTo(before.subtract(new BigDecimal("6.00")));
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", orderNo))
        .isEqualTo(1);
  }

  @Test
  void aWalletPaymentOfAPayerWithoutAWalletFailsAsAnUnknownAccount() {
    String orderNo = alice.order("STICKER", 1);
    String paymentNo = "PAY-nowallet-" + key().substring(0, 8);
    insertWalletProcessing(paymentNo, orderNo, "nobody", "2.00");

    assertThat(flow.complete(paymentNo)).isEqualTo(PaymentStatus.FAILED);

    assertThat(
            jdbc.queryForObject(
                "SELECT failure_reason FROM payment_records WHERE payment_no = ?",
                String.class,
                paymentNo))
        .startsWith("unknown account");
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", orderNo)).isZero();
  }

  @Test
  void aPaymentWhoseSettlementFailsIsFinishedOnceByTheCompleterWhileItFinishesTheOthers() {
    String poisoned = alice.order("STICKER", 2);
    String other = alice.order("STICKER", 1);
    BigDecimal before = balance(alice);
    // Settling fails on the database: a constraint refuses the order as PAID, so the debit's
    // transaction rolls back and the shopper gets an error.
    String poison = refusePaid(poisoned);
    Answer failed = alice.pay(poisoned, "WALLET", key());
    // Meanwhile a card payment whose answer is lost, also left to the completer.
    gateway.script(Behaviour.approve().timingOut().callback(Callback.NONE, 0));
    Answer lost = alice.pay(other, "CARD", key());

    assertThat(failed.status()).isGreaterThanOrEqualTo(500);
    assertThat(lost.status()).isEqualTo(504);
    String stuck = openPaymentOf(poisoned);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> alice.get("/api/orders/" + other).text("status"), "PAID"::equals);
    String whileBroken = status(stuck);
    jdbc.execute("ALTER TABLE orders DROP CONSTRAINT " + poison);

    assertThat(whileBroken).isEqualTo("PROCESSING");
    await().atMost(Duration.ofSeconds(30)).until(() -> status(stuck), "SUCCESS"::equals);
    assertThat(balance(alice)).isEqualByComparingTo(before.subtract(new BigDecimal("4.00")));
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", poisoned))
        .isEqualTo(1);
    assertThat(events(poisoned)).isEqualTo(1);
    assertThat(charges(other)).isEqualTo(1);
  }

  @Test
  void manyOrdersOfOneUserPaidTwiceAtOnceByWalletAreEachDebitedOnce() throws Exception {
    int orders = 12;
    List<String> orderNos = new ArrayList<>();
    BigDecimal total = BigDecimal.ZERO;
    for (int i = 0; i < orders; i++) {
      orderNos.add(alice.order("STICKER", 1 + i % 2));
      total = total.add(new BigDecimal("2.00").multiply(BigDecimal.valueOf(1 + i % 2)));
    }
    BigDecimal before = balance(alice);
    AtomicInteger next = new AtomicInteger();

    // Every order twice at once, each request with its own key, retried as a client would.
    List<Answer> answers =
        OrdersTest.concurrently(
            2 * orders, () -> payUntilAnswered(orderNos.get(next.getAndIncrement() % orders)));

    assertThat(answers)
        .allSatisfy(
            a ->
                assertThat(a.status() < 300 ? a.text("status") : a.text("type"))
                    .isIn("SUCCESS", "urn:shop:problem:order-paid"));
    assertThat(balance(alice)).isEqualByComparingTo(before.subtract(total));
    for (String orderNo : orderNos) {
      assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", orderNo))
          .isEqualTo(1);
      assertThat(
              count(
                  "SELECT COUNT(*) FROM payment_records WHERE order_no = ? AND status = 'SUCCESS'",
                  orderNo))
          .isEqualTo(1);
    }
  }

  // A 5xx (a lost optimistic race in mode versioned, a busy wallet) frees the key: send it again.
  private Answer payUntilAnswered(String orderNo) {
    String key = key();
    Answer answer = alice.pay(orderNo, "WALLET", key);
    for (int i = 0; i < 20 && answer.status() >= 500; i++) {
      answer = alice.pay(orderNo, "WALLET", key);
    }
    return answer;
  }

  @Test
  void aSecondPaymentWithAFreshKeyOnAPaidOrderIsRefusedAndTheFirstStaysAsItWas() {
    String orderNo = alice.order("STICKER", 7);
    Answer first = alice.pay(orderNo, "CARD", key());
    Answer second = alice.pay(orderNo, "WALLET", key());
    Answer third = alice.pay(orderNo, "CARD", key());

    assertThat(first.text("status")).isEqualTo("SUCCESS");
    assertThat(second.status()).isEqualTo(409);
    assertThat(second.text("type")).isEqualTo("urn:shop:problem:order-paid");
    assertThat(third.status()).isEqualTo(409);
    assertThat(count("SELECT COUNT(*) FROM payment_records WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    assertThat(
            count(
                "SELECT COUNT(*) FROM payment_records WHERE payment_no = ? AND status = 'SUCCESS'",
                first.text("paymentNo")))
        .isEqualTo(1);
  }

  @Test
  void aWalletWithoutEnoughMoneyFailsThePaymentAndTakesNothing() {
    String poor = "{\"items\":[{\"sku\":\"BOOK\",\"quantity\":1}]}";
    jdbc.update(
        // initial_balance first: MariaDB assigns left to right, each seeing the ones before.
        "UPDATE accounts SET initial_balance = initial_balance - (balance - 1.00),"
            + " balance = 1.00 WHERE username = 'bob'");
    Answer order = bob.post("/api/orders", poor, "Idempotency-Key", key());
    Answer answer = bob.pay(order.text("orderNo"), "WALLET", key());

    assertThat(answer.text("status")).isEqualTo("FAILED");
    assertThat(answer.text("reason")).isEqualTo("insufficient funds");
    assertThat(balance(bob)).isEqualByComparingTo("1.00");
  }

  @Test
  void nobodyPaysSomeoneElsesOrder() {
    String orderNo = alice.order("STICKER", 9);
    assertThat(bob.pay(orderNo, "CARD", key()).status()).isEqualTo(404);
    assertThat(alice.pay(orderNo, "CASH", key()).status()).isEqualTo(400);
  }
}
