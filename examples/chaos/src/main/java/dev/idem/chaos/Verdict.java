package dev.idem.chaos;

import java.util.List;

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
 *       gateway-timeout} and 503 {@code wallet-busy} the shop is built to give, more than {@link
 *       #FAULT_WINDOW_MILLIS} after the last fault;
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
 * @param walletBusy 503 {@code wallet-busy} answers (retried after a second with the same key)
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
    long walletBusy,
    long connectionErrors,
    long inProgress,
    long abandoned,
    double p50Millis,
    double p99Millis,
    List<String> findings,
    String error) {

  /** How long after a fault a 5xx still counts as its consequence. */
  public static final long FAULT_WINDOW_MILLIS = 20_000;

  /** At most this many findings are kept, the first ones. */
  static final int MAX_FINDINGS = 40;

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
        ledger.walletBusyAnswers(),
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
    long[] z = new long[16];
    return new Verdict(
        scenario,
        z[0],
        z[1],
        z[2],
        z[3],
        z[4],
        z[5],
        z[6],
        z[7],
        z[8],
        z[9],
        z[10],
        z[11],
        z[12],
        z[13],
        z[14],
        z[15],
        0,
        0,
        List.of("could not run: " + error),
        error);
  }
}
