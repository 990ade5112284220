package dev.idem.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VerdictTest {

  private final Ledger ledger = new Ledger();
  private final Map<String, String> answeredOrders = new HashMap<>();
  private final List<String> ordersOfUsers = new ArrayList<>();
  private final List<String> audit = new ArrayList<>();

  private Verdict judge() {
    ShopState state =
        new ShopState(
            answeredOrders, ordersOfUsers, audit, Map.of("orders", 1L, "paidOrders", 1L), 0, 0);
    return Verdict.judge("t", ledger, state, 1, 2);
  }

  /** An order placed with {@code key}, answered {@code status} with its derived number. */
  private String order(String key, int status, long at) {
    String orderNo = Bodies.derivedOrderNo("u", key);
    ledger.key(Operation.ORDER, "u", key, orderNo);
    ledger.completed("u", key, orderAnswer(orderNo, status, "CREATED", at));
    return orderNo;
  }

  private static Answer orderAnswer(String orderNo, int status, String state, long at) {
    return new Answer(
        status, "{\"orderNo\":\"" + orderNo + "\",\"status\":\"" + state + "\"}", at, at + 5);
  }

  private static Answer payment(String paymentNo, String orderNo, int status, long at) {
    return new Answer(
        status,
        "{\"paymentNo\":\""
            + paymentNo
            + "\",\"orderNo\":\""
            + orderNo
            + "\",\"status\":\""
            + (status == 409 ? "order-paid" : "SUCCESS")
            + "\"}",
        at,
        at + 5);
  }

  @Test
  void aRunWhereEveryRepeatGotTheFirstAnswerIsOk() {
    String orderNo = order("k1", 201, 0);
    ledger.completed("u", "k1", orderAnswer(orderNo, 201, "CREATED", 10));
    ledger.key(Operation.WALLET, "u", "p1", orderNo);
    ledger.completed("u", "p1", payment("PAY-1", orderNo, 201, 20));
    ledger.completed("u", "p1", payment("PAY-1", orderNo, 201, 30));
    answeredOrders.put(orderNo, "PAID");
    ordersOfUsers.add(orderNo);

    Verdict v = judge();

    assertThat(v.ok()).isTrue();
    assertThat(v.findings()).isEmpty();
  }

  @Test
  void anOrderAnswered201ThatTheShopDoesNotFindIsLost() {
    order("k1", 201, 0);

    Verdict v = judge();

    assertThat(v.lost()).isEqualTo(1);
    assertThat(v.ok()).isFalse();
    assertThat(v.findings()).singleElement().asString().startsWith("lost: order ");
  }

  @Test
  void aPaymentAnsweredSuccessWhoseOrderIsNotPaidIsLost() {
    String orderNo = order("k1", 201, 0);
    answeredOrders.put(orderNo, "CREATED");
    ordersOfUsers.add(orderNo);
    ledger.key(Operation.CARD, "u", "p1", orderNo);
    ledger.completed("u", "p1", payment("PAY-1", orderNo, 201, 20));

    assertThat(judge().lost()).isEqualTo(1);
  }

  @Test
  void twoPaymentsAnsweredSuccessForOneOrderAreDoubled() {
    String orderNo = order("k1", 201, 0);
    answeredOrders.put(orderNo, "PAID");
    ordersOfUsers.add(orderNo);
    ledger.key(Operation.CARD, "u", "p1", orderNo);
    ledger.completed("u", "p1", payment("PAY-1", orderNo, 201, 20));
    ledger.key(Operation.WALLET, "u", "p2", orderNo);
    ledger.completed("u", "p2", payment("PAY-2", orderNo, 201, 25));

    Verdict v = judge();

    assertThat(v.doubled()).isEqualTo(1);
    assertThat(v.ok()).isFalse();
  }

  @Test
  void anOrderOfTheUsersThatNoKeyExplainsIsDoubled() {
    String orderNo = order("k1", 201, 0);
    answeredOrders.put(orderNo, "CREATED");
    ordersOfUsers.add(orderNo);
    ordersOfUsers.add("ORD-from-nowhere");

    assertThat(judge().doubled()).isEqualTo(1);
  }

  @Test
  void anAuditViolationOfTheMoreThanOnceKindCountsAsDoubled() {
    audit.add("order charged more than once at the gateway: ORD-1");

    Verdict v = judge();

    assertThat(v.doubled()).isEqualTo(1);
    assertThat(v.auditViolations()).isEqualTo(1);
  }

  @Test
  void aRepeatAnsweredDifferentlyIsAChangedAnswer() {
    String orderNo = order("k1", 201, 0);
    ledger.completed("u", "k1", orderAnswer(orderNo, 200, "PAID", 100));
    answeredOrders.put(orderNo, "PAID");
    ordersOfUsers.add(orderNo);

    Verdict v = judge();

    assertThat(v.changed()).isEqualTo(1);
    assertThat(v.explainedChanges()).isZero();
    assertThat(v.ok()).isFalse();
  }

  @Test
  void aChangedAnswerAfterTheStoreWasFlushedIsExplained() {
    String orderNo = order("k1", 201, 0);
    ledger.fault(new FaultMark(50, "flush-redis", FaultAction.FLUSH_REDIS));
    ledger.completed("u", "k1", orderAnswer(orderNo, 200, "PAID", 100));
    answeredOrders.put(orderNo, "PAID");
    ordersOfUsers.add(orderNo);

    Verdict v = judge();

    assertThat(v.changed()).isZero();
    assertThat(v.explainedChanges()).isEqualTo(1);
    assertThat(v.ok()).isTrue();
  }

  @Test
  void aKilledInstanceDoesNotExplainAChangedAnswer() {
    String orderNo = order("k1", 201, 0);
    ledger.fault(new FaultMark(50, "kill #1", FaultAction.KILL));
    ledger.completed("u", "k1", orderAnswer(orderNo, 200, "PAID", 100));
    answeredOrders.put(orderNo, "PAID");
    ordersOfUsers.add(orderNo);

    assertThat(judge().changed()).isEqualTo(1);
  }

  @Test
  void aPayment409IsNotComparedBecauseTheShopNeverStoresIt() {
    String orderNo = order("k1", 201, 0);
    answeredOrders.put(orderNo, "PAID");
    ordersOfUsers.add(orderNo);
    ledger.key(Operation.CARD, "u", "p1", orderNo);
    ledger.completed("u", "p1", payment("PAY-1", orderNo, 409, 20));
    ledger.completed("u", "p1", payment("PAY-1", orderNo, 200, 40));

    assertThat(judge().ok()).isTrue();
  }

  @Test
  void a5xxLongAfterAnyFaultIsUnexplained() {
    ledger.fault(new FaultMark(1_000, "kill #1", FaultAction.KILL));
    ledger.serverError(Operation.ORDER, new Answer(500, "{}", 2_000, 2_010));
    ledger.serverError(Operation.ORDER, new Answer(500, "{}", 60_000, 60_010));

    Verdict v = judge();

    assertThat(v.serverErrors()).isEqualTo(2);
    assertThat(v.unexplained5xx()).isEqualTo(1);
    assertThat(v.ok()).isFalse();
  }

  @Test
  void a5xxDuringAPartitionIsExplainedUntilTheWindowAfterItHealed() {
    ledger.fault(new FaultMark(10_000, "partition #2", FaultAction.PARTITION));
    ledger.fault(new FaultMark(40_000, "heal", FaultAction.HEAL));
    ledger.serverError(Operation.ORDER, new Answer(503, "{}", 35_000, 35_010));
    ledger.serverError(Operation.ORDER, new Answer(503, "{}", 55_000, 55_010));
    ledger.serverError(Operation.ORDER, new Answer(503, "{}", 65_000, 65_010));

    Verdict v = judge();

    assertThat(v.serverErrors()).isEqualTo(3);
    assertThat(v.unexplained5xx()).isEqualTo(1);
  }

  @Test
  void aCallbackThatTurnsASettledPaymentAroundIsContradicted() {
    String orderNo = order("k1", 201, 0);
    answeredOrders.put(orderNo, "PAID");
    ordersOfUsers.add(orderNo);
    ledger.key(Operation.CARD, "u", "p1", orderNo);
    ledger.completed("u", "p1", payment("PAY-1", orderNo, 201, 20));
    ledger.callback(
        "PAY-1", new Answer(200, "{\"paymentNo\":\"PAY-1\",\"status\":\"FAILED\"}", 30, 35));

    assertThat(judge().contradicted()).isEqualTo(1);
  }

  @Test
  void theDerivedOrderNumberIsTheShops() {
    // The same digest the shop's OrderNumbers.derived computes: SHA-256 of "alice\nk".
    assertThat(Bodies.derivedOrderNo("alice", "k")).startsWith("ORD-").hasSize(28);
    assertThat(Bodies.derivedOrderNo("alice", "k")).isNotEqualTo(Bodies.derivedOrderNo("bob", "k"));
  }
}
