package dev.idem.chaos;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs one scenario: starts the fleet, schedules the faults, runs the load with a progress line,
 * inspects the shop and judges. The fleet is torn down whatever happens.
 */
final class ChaosRun {

  /**
   * What a run produced.
   *
   * @param scenario the scenario
   * @param started when the load started
   * @param verdict the judgement
   * @param timeline answers per second and their latencies
   * @param faults the faults and events with their times
   * @param pendingMessages event publications not completed at the audit
   * @param counts the audit's counts
   * @param serverErrors every 5xx from a live shop, grouped: count, operation, status, problem type
   *     and the seconds they came at
   * @param rates the capacity measured, the rate aimed at and the rate reached
   */
  record Result(
      Scenario scenario,
      Instant started,
      Rates rates,
      Verdict verdict,
      Timeline timeline,
      List<FaultMark> faults,
      long pendingMessages,
      java.util.Map<String, Long> counts,
      List<String> serverErrors) {

    /** The result of a scenario that could not run. */
    static Result failed(Scenario scenario, String error) {
      return new Result(
          scenario,
          Instant.now(),
          new Rates(Double.NaN, 0, Double.NaN, Double.NaN),
          Verdict.failedToRun(scenario.name(), error),
          new Timeline(),
          List.of(),
          0,
          java.util.Map.of(),
          List.of());
    }
  }

  /**
   * Operations per second: the capacity measured before the load (NaN when the scenario has no
   * target rate), the target (0 for none), and what the load reached; and the HTTP requests per
   * second the load sent (its retries and repeats included), which is what the shops served.
   */
  record Rates(double capacity, double target, double reached, double requests) {

    /** A load is said to reach its target when it gets within a tenth of it. */
    static final double REACHED = 0.9;

    boolean paced() {
      return target > 0;
    }

    boolean missed() {
      return paced() && reached < REACHED * target;
    }
  }

  private final Settings settings;
  private final PrintStream out;

  ChaosRun(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  Result run(Scenario scenario) throws Exception {
    out.println("== " + scenario.name() + ": starting " + scenario.instances() + " shop(s)");
    try (ShopFleet fleet = ShopFleet.start(scenario, settings)) {
      Ledger ledger = new Ledger();
      double capacity = scenario.load().paced() ? capacity(scenario, fleet, ledger) : Double.NaN;
      double target = scenario.load().paced() ? capacity * scenario.load().share() : 0;
      Timeline timeline = new Timeline();
      Instant started = Instant.now();
      Sender sender = new Sender(fleet.endpoints(), ledger, timeline, System.nanoTime());
      long loadMillis;
      try (sender) {
        LoadGenerator load = new LoadGenerator(scenario, sender, ledger, fleet.gatewaySecret());
        // A fault held up behind a slow restart and due only after the load is dropped.
        AtomicBoolean loadDone = new AtomicBoolean();
        // One thread for the faults: they run in order, a fault waiting for the one before it. A
        // shop's restart only launches it (its start may take long on a busy machine).
        ScheduledThreadPoolExecutor faults =
            new ScheduledThreadPoolExecutor(1, LoadGenerator.daemon("chaos-faults"));
        faults.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        ScheduledExecutorService ticker =
            Executors.newSingleThreadScheduledExecutor(LoadGenerator.daemon("chaos-progress"));
        try {
          for (Scenario.Fault fault : scenario.faults()) {
            faults.schedule(
                () -> {
                  if (!loadDone.get()) {
                    inject(fleet, fault, ledger, sender);
                  }
                },
                fault.at().toMillis(),
                TimeUnit.MILLISECONDS);
          }
          Progress progress = new Progress(scenario, sender, ledger, timeline, load, out);
          ticker.scheduleAtFixedRate(progress::print, 1, 1, TimeUnit.SECONDS);
          load.run(
              scenario.duration().isZero() ? Long.MAX_VALUE : scenario.duration().toMillis(),
              target);
          loadMillis = sender.now();
          loadDone.set(true);
          ticker.shutdown();
          // A fault still running (a restart) finishes; those not yet due are dropped.
          faults.shutdown();
          faults.awaitTermination(3, TimeUnit.MINUTES);
          progress.finish();
        } finally {
          ticker.shutdownNow();
          faults.shutdownNow();
        }
        // the load's own time: a restart still running after it, awaited above, is not part of it
        double seconds = loadMillis / 1000.0;
        Rates rates =
            new Rates(
                capacity,
                target,
                load.operations() / seconds,
                timeline.all().getTotalCount() / seconds);
        if (rates.paced()) {
          out.printf(
              "   rate reached %.1f operations/s (%.0f requests/s) of %.1f aimed at%s%n",
              rates.reached(),
              rates.requests(),
              target,
              rates.missed() ? ": the load did not reach its rate" : "");
        }
        out.println("   load done; checking the shop");
        ShopInspector inspector = new ShopInspector(sender, fleet.liveInstance());
        ShopState state = inspector.inspect(ledger, scenario.users());
        Verdict verdict =
            Verdict.judge(
                scenario.name(),
                ledger,
                state,
                Timeline.millis(timeline.all(), 50),
                Timeline.millis(timeline.all(), 99));
        return new Result(
            scenario,
            started,
            rates,
            verdict,
            timeline,
            ledger.faults(),
            state.pendingMessages(),
            state.counts(),
            serverErrors(ledger));
      }
    }
  }

  /**
   * Runs the users flat out, without faults, for the scenario's warm-up and then its capacity
   * window, and returns the operations per second they reached in the window. Their operations go
   * into the ledger and are judged with the rest; their clock ends at 0, so that none of their
   * answers seems to come after a fault.
   */
  private double capacity(Scenario scenario, ShopFleet fleet, Ledger ledger)
      throws InterruptedException {
    Duration warmup = scenario.load().warmup();
    Duration window = scenario.load().capacity();
    out.println(
        "   warming up for "
            + seconds(warmup)
            + ", then measuring the capacity for "
            + seconds(window)
            + ", flat out, no faults");
    flatOut(scenario, fleet, ledger, warmup.plus(window), window);
    long operations = flatOut(scenario, fleet, ledger, window, Duration.ZERO);
    double capacity = operations / (window.toMillis() / 1000.0);
    out.printf(
        "   capacity %.1f operations/s; the load runs at %.0f %% of it%n",
        capacity, 100 * scenario.load().share());
    return capacity;
  }

  /** Runs the users flat out from {@code from} before 0 until {@code until} before it. */
  private long flatOut(
      Scenario scenario, ShopFleet fleet, Ledger ledger, Duration from, Duration until)
      throws InterruptedException {
    if (from.equals(until)) {
      return 0;
    }
    try (Sender probe =
        new Sender(fleet.endpoints(), ledger, new Timeline(), System.nanoTime() + from.toNanos())) {
      LoadGenerator users = new LoadGenerator(scenario, probe, ledger, fleet.gatewaySecret());
      users.run(-until.toMillis(), 0);
      return users.operations();
    }
  }

  private void inject(ShopFleet fleet, Scenario.Fault fault, Ledger ledger, Sender sender) {
    long at = sender.now();
    ledger.fault(new FaultMark(at, fault.label(), fault.action()));
    try {
      fleet
          .apply(fault)
          .whenComplete(
              (done, failure) -> {
                String what = fault.action() == FaultAction.RESTART ? "#" + fault.instance() : "";
                if (failure != null) {
                  out.printf("%n   fault %s failed: %s%n", fault.label(), failure);
                  ledger.fault(new FaultMark(sender.now(), fault.label() + " failed", null));
                } else if (!what.isEmpty()) {
                  out.printf("%n   %5.1fs %s up%n", sender.now() / 1000.0, what);
                  ledger.fault(new FaultMark(sender.now(), what + " up", null));
                }
              });
    } catch (Exception e) {
      out.printf("%n   fault %s failed: %s%n", fault.label(), e);
      ledger.fault(new FaultMark(sender.now(), fault.label() + " failed", null));
    }
    out.printf("%n   %5.1fs fault: %s (%d ms)%n", at / 1000.0, fault.label(), sender.now() - at);
  }

  /** The 5xx answers grouped by operation, status and problem type, with when they came. */
  static List<String> serverErrors(Ledger ledger) {
    java.util.Map<String, List<Long>> groups = new java.util.TreeMap<>();
    for (Ledger.ServerError e : ledger.serverErrors()) {
      String type =
          Bodies.field(e.answer().body(), "type")
              .or(() -> Bodies.field(e.answer().body(), "error"))
              .orElse(
                  e.answer().body().length() > 80
                      ? e.answer().body().substring(0, 80)
                      : e.answer().body());
      String detail = Bodies.field(e.answer().body(), "detail").map(d -> " (" + d + ")").orElse("");
      groups
          .computeIfAbsent(
              e.operation() + " " + e.answer().status() + " " + type + detail,
              k -> new java.util.ArrayList<>())
          .add(e.answer().endMillis() / 1000);
    }
    List<String> lines = new java.util.ArrayList<>();
    groups.forEach(
        (what, at) ->
            lines.add(
                at.size()
                    + "x "
                    + what
                    + " at "
                    + at.stream().distinct().map(s -> s + "s").toList()));
    return lines;
  }

  static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }
}
