package dev.idem.chaos;

import java.io.PrintStream;

/**
 * The progress line: elapsed time against the scenario's, operations, requests per second in the
 * last second, p99 of the last second, and the retries so far. On a terminal it rewrites one line
 * every second; otherwise (a log, CI) it prints a line every ten seconds.
 */
final class Progress {

  private final Scenario scenario;
  private final Sender sender;
  private final Ledger ledger;
  private final Timeline timeline;
  private final LoadGenerator load;
  private final PrintStream out;
  private final boolean terminal = System.console() != null;

  Progress(
      Scenario scenario,
      Sender sender,
      Ledger ledger,
      Timeline timeline,
      LoadGenerator load,
      PrintStream out) {
    this.scenario = scenario;
    this.sender = sender;
    this.ledger = ledger;
    this.timeline = timeline;
    this.load = load;
    this.out = out;
  }

  void print() {
    long now = sender.now();
    int second = (int) (now / 1000);
    if (!terminal && second % 10 != 0) {
      return;
    }
    var last = timeline.second(second - 1);
    String goal =
        scenario.duration().isZero()
            ? load.operations() + "/" + scenario.requests() + " ops"
            : String.format("%3ds/%ds", second, scenario.duration().toSeconds());
    String line =
        String.format(
            "   [%s] %s %s  %6d ops  %4d req/s  p99 %6.0f ms  conn-err %d  in-progress %d  5xx %d  504 %d",
            scenario.name(),
            bar(now),
            goal,
            load.operations(),
            last.getTotalCount(),
            Timeline.millis(last, 99),
            ledger.connectionErrors(),
            ledger.inProgressAnswers(),
            ledger.serverErrors().size(),
            ledger.gatewayTimeouts());
    if (terminal) {
      out.print("\r" + line);
    } else {
      out.println(line);
    }
    out.flush();
  }

  void finish() {
    if (terminal) {
      out.println();
    }
  }

  private String bar(long now) {
    double done =
        scenario.duration().isZero()
            ? (double) load.operations() / scenario.requests()
            : (double) now / scenario.duration().toMillis();
    int filled = (int) Math.round(Math.max(0, Math.min(1, done)) * 20);
    return "[" + "#".repeat(filled) + " ".repeat(20 - filled) + "]";
  }
}
