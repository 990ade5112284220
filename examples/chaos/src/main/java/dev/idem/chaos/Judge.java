package dev.idem.chaos;

import dev.idem.chaos.Ledger.KeyRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Counts what {@link Verdict} reports, one pass per rule over the {@link Ledger} and the {@link
 * ShopState}; the rules are described on {@link Verdict}.
 */
final class Judge {
  private final Ledger ledger;
  private final ShopState shop;
  private final List<FaultMark> faults;
  final List<String> findings = new ArrayList<>();
  private final Map<String, String> settled = new HashMap<>();
  private final Map<String, Set<String>> successfulPayments = new HashMap<>();
  long lost;
  long doubled;
  long unexplained5xx;
  long changed;
  long explainedChanges;
  long contradicted;

  Judge(Ledger ledger, ShopState shop) {
    this.ledger = ledger;
    this.shop = shop;
    this.faults = ledger.faults();
  }

  void keys() {
    for (KeyRecord record : ledger.keys()) {
      List<Answer> answers = comparable(record);
      if (!answers.isEmpty()) {
        repeats(record, answers);
      }
      if (record.operation() == Operation.ORDER) {
        order(record);
      } else {
        payment(record);
      }
    }
    successfulPayments.forEach(
        (orderNo, payments) -> {
          if (payments.size() > 1) {
            doubled += payments.size() - 1;
            finding("doubled: order " + orderNo + " paid by " + payments);
          }
        });
  }

  private List<Answer> comparable(KeyRecord record) {
    // A payment's 409 is answered but never stored (retryable-statuses), so it may differ.
    return record.answers().stream()
        .filter(a -> !(record.operation().payment() && a.status() == 409))
        .toList();
  }

  private void repeats(KeyRecord record, List<Answer> answers) {
    Answer first = answers.get(0);
    for (Answer other : answers.subList(1, answers.size())) {
      if (other.sameAs(first)) {
        continue;
      }
      if (storeFaultBetween(first.startMillis(), other.endMillis())) {
        explainedChanges++;
      } else {
        changed++;
        finding(
            "changed: "
                + record.operation()
                + " key "
                + record.key()
                + " of "
                + record.user()
                + " first "
                + first.status()
                + " "
                + first.body()
                + ", then "
                + other.status()
                + " "
                + other.body());
      }
    }
  }

  private void order(KeyRecord record) {
    Set<String> numbers = new HashSet<>();
    for (Answer a : record.answers()) {
      if (a.success()) {
        Bodies.field(a.body(), "orderNo").ifPresent(numbers::add);
      }
    }
    if (numbers.size() > 1) {
      doubled += numbers.size() - 1;
      finding("doubled: order key " + record.key() + " of " + record.user() + " got " + numbers);
    }
    for (String orderNo : numbers) {
      if (!shop.answeredOrders().containsKey(orderNo)) {
        lost++;
        finding("lost: order " + orderNo + " answered 2xx, not found afterwards");
      }
    }
  }

  private void payment(KeyRecord record) {
    // Two payment numbers under one key are no double effect by themselves (a declined payment,
    // the record lost, a new attempt): what must not happen is two successful ones per order.
    for (Answer a : record.answers()) {
      if (!a.success()) {
        continue;
      }
      String paymentNo = Bodies.field(a.body(), "paymentNo").orElse("?");
      String status = Bodies.field(a.body(), "status").orElse("");
      if (status.equals("SUCCESS") || status.equals("FAILED")) {
        settled.putIfAbsent(paymentNo, status);
      }
      if (status.equals("SUCCESS")) {
        successfulPayments.computeIfAbsent(record.orderNo(), o -> new HashSet<>()).add(paymentNo);
        String orderStatus = shop.answeredOrders().get(record.orderNo());
        if (!"PAID".equals(orderStatus)) {
          lost++;
          finding(
              "lost: payment "
                  + paymentNo
                  + " answered SUCCESS, order "
                  + record.orderNo()
                  + " is "
                  + orderStatus);
        }
      }
    }
  }

  void unknownOrders() {
    Set<String> explained = new HashSet<>();
    for (KeyRecord record : ledger.keys()) {
      if (record.operation() == Operation.ORDER) {
        explained.add(record.orderNo());
      }
    }
    for (String orderNo : shop.ordersOfUsers()) {
      if (!explained.contains(orderNo)) {
        doubled++;
        finding("doubled: order " + orderNo + " matches no key the tool sent");
      }
    }
  }

  void callbacks() {
    for (Ledger.Callback c : ledger.callbacks()) {
      String before = settled.get(c.paymentNo());
      if (before == null || c.answer().status() != 200) {
        continue;
      }
      String now = Bodies.field(c.answer().body(), "status").orElse("");
      if (!now.equals(before)) {
        contradicted++;
        finding(
            "contradicted: payment "
                + c.paymentNo()
                + " settled "
                + before
                + ", callback answered "
                + now);
      }
    }
  }

  void serverErrors() {
    for (Ledger.ServerError e : ledger.serverErrors()) {
      if (!faultShortlyBefore(e.answer().endMillis())) {
        unexplained5xx++;
        finding(
            "5xx: "
                + e.operation()
                + " "
                + e.answer().status()
                + " "
                + e.answer().body()
                + " at "
                + e.answer().endMillis()
                + " ms");
      }
    }
  }

  void audit() {
    for (String violation : shop.auditViolations()) {
      if (violation.contains("more than once") || violation.contains("more than one")) {
        doubled++;
      }
      finding("audit: " + violation);
    }
  }

  private boolean storeFaultBetween(long from, long to) {
    return faults.stream()
        .anyMatch(
            f ->
                f.action() != null
                    && f.action().touchesStore()
                    && f.atMillis() <= to
                    && endOf(f) >= from - 1_000);
  }

  // Within the window after a fault is over; a lasting one (a partition) is over when it is ended.
  private boolean faultShortlyBefore(long at) {
    return faults.stream()
        .anyMatch(
            f ->
                f.action() != null
                    && f.atMillis() <= at + 1_000
                    && at - endOf(f) <= Verdict.FAULT_WINDOW_MILLIS);
  }

  // When a fault's effect ended: at the mark that ends it (or never, if none came), else at once.
  private long endOf(FaultMark fault) {
    FaultAction until = fault.action().endedBy();
    if (until == null) {
      return fault.atMillis();
    }
    return faults.stream()
        .filter(e -> e.action() == until && e.atMillis() >= fault.atMillis())
        .mapToLong(FaultMark::atMillis)
        .min()
        .orElse(Long.MAX_VALUE);
  }

  private void finding(String line) {
    if (findings.size() < Verdict.MAX_FINDINGS) {
      findings.add(line.length() > 400 ? line.substring(0, 400) + "..." : line);
    }
  }
}
