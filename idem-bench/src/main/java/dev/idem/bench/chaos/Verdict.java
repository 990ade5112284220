package dev.idem.bench.chaos;

import dev.idem.bench.chaos.Ledger.KeyRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The judgement of one run: the {@link Ledger} against the {@link ShopState}.
 *
 * <ul>
 *   <li><b>doubled</b>: an order key whose successful answers name two different orders, an order
 *       with two payments answered SUCCESS, or an order of the tool's users that no key the tool
 *       sent explains, plus every audit violation of "more than one" kind;
 *   <li><b>lost</b>: an order answered 2xx that {@code GET /api/orders/{orderNo}} does not find, or
 *       a payment answered SUCCESS whose order is not PAID;
 *   <li><b>changed</b>: a repeat whose answer differs (status or body) from the key's first
 *       completed answer, unless a fault that loses records (Redis flushed, restarted or cut) fell
 *       between the two; payment answers 409 are left out, being answered but never stored;
 *   <li><b>unexplained 5xx</b>: a 5xx from a shop that answered, other than the 504 {@code
 *       gateway-timeout} the shop is built to give, more than {@link #FAULT_WINDOW_MILLIS} after
 *       the last fault;
 *   <li><b>contradicted</b>: a callback answered with another status than a payment's settled one.
 * </ul>
 *
 * The run is OK when all of them and the audit's violations are zero.
 *
 * @param scenario the scenario's name
 * @param requests HTTP requests sent, every attempt counted
 * @param duplicates copies sent on purpose with a key already used
 * @param effects orders plus paid orders in the shop
 * @param lost completed requests whose effect is missing
 * @param doubled effects beyond one per key or order
 * @param serverErrors 5xx answers from live shops (504 gateway timeouts not included)
 * @param unexplained5xx those not explained by a fault shortly before
 * @param changed repeats answered differently without a record-losing fault in between
 * @param explainedChanges repeats answered differently after such a fault
 * @param contradicted callbacks answered against a settled status
 * @param auditViolations the audit's violations
 * @param gatewayTimeouts 504 {@code gateway-timeout} answers (retried with the same key)
 * @param connectionErrors requests without an answer (retried on another instance)
 * @param inProgress 409 {@code in-progress} answers (retried)
 * @param abandoned operations given up without a completed answer
 * @param p50Millis median latency of all requests
 * @param p99Millis 99th percentile latency
 * @param findings one line per problem found, for the report
 * @param error why the scenario could not run (the shops did not start, ...), or null when it ran
 */
public record Verdict(
    String scenario,
    long requests,
    long duplicates,
    long effects,
    long lost,
    long doubled,
    long serverErrors,
    long unexplained5xx,
    long changed,
    long explainedChanges,
    long contradicted,
    long auditViolations,
    long gatewayTimeouts,
    long connectionErrors,
    long inProgress,
    long abandoned,
    double p50Millis,
    double p99Millis,
    List<String> findings,
    String error) {

  /** How long after a fault a 5xx still counts as its consequence. */
  public static final long FAULT_WINDOW_MILLIS = 20_000;

  private static final int MAX_FINDINGS = 40;

  public Verdict {
    findings = List.copyOf(findings);
  }

  /** Whether nothing was lost, doubled, changed, contradicted, unexplained or audited wrong. */
  public boolean ok() {
    return error == null
        && lost == 0
        && doubled == 0
        && unexplained5xx == 0
        && changed == 0
        && contradicted == 0
        && auditViolations == 0;
  }

  /** Judges a run. */
  public static Verdict judge(
      String scenario, Ledger ledger, ShopState shop, double p50Millis, double p99Millis) {
    Judge j = new Judge(ledger, shop);
    j.keys();
    j.unknownOrders();
    j.callbacks();
    j.serverErrors();
    j.audit();
    long effects =
        shop.counts().getOrDefault("orders", 0L) + shop.counts().getOrDefault("paidOrders", 0L);
    return new Verdict(
        scenario,
        ledger.requests(),
        ledger.duplicates(),
        effects,
        j.lost,
        j.doubled,
        ledger.serverErrors().size(),
        j.unexplained5xx,
        j.changed,
        j.explainedChanges,
        j.contradicted,
        shop.auditViolations().size(),
        ledger.gatewayTimeouts(),
        ledger.connectionErrors(),
        ledger.inProgressAnswers(),
        ledger.abandonedOperations(),
        p50Millis,
        p99Millis,
        j.findings,
        null);
  }

  /** The verdict of a scenario that could not run: not OK, with the reason as its finding. */
  public static Verdict failedToRun(String scenario, String error) {
    return new Verdict(
        scenario,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        List.of("could not run: " + error),
        error);
  }

  /** The counting, one pass per rule. */
  private static final class Judge {
    private final Ledger ledger;
    private final ShopState shop;
    private final List<FaultMark> faults;
    private final List<String> findings = new ArrayList<>();
    private final Map<String, String> settled = new HashMap<>();
    private final Map<String, Set<String>> successfulPayments = new HashMap<>();
    private long lost;
    private long doubled;
    private long unexplained5xx;
    private long changed;
    private long explainedChanges;
    private long contradicted;

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
                      && f.atMillis() >= from - 1_000
                      && f.atMillis() <= to);
    }

    private boolean faultShortlyBefore(long at) {
      return faults.stream()
          .anyMatch(
              f ->
                  f.action() != null
                      && f.atMillis() <= at + 1_000
                      && at - f.atMillis() <= FAULT_WINDOW_MILLIS);
    }

    private void finding(String line) {
      if (findings.size() < MAX_FINDINGS) {
        findings.add(line.length() > 400 ? line.substring(0, 400) + "..." : line);
      }
    }
  }
}
