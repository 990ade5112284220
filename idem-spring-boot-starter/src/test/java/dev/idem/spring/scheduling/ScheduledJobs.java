package dev.idem.spring.scheduling;

import dev.idem.spring.Idempotent;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.slf4j.MDC;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The jobs of the scheduling tests, one bean per node (a node is an application context): each run
 * records which node ran which slot (the key the engine put in the MDC). {@code test.node} names
 * the node; a node named in {@link #STALLED} stalls in its {@code settle} run until the test lets
 * it go, as a process would that died mid-run.
 */
public class ScheduledJobs {

  /** Every completed run of {@code tick}: "slot node". */
  static final Queue<String> TICKS = new ConcurrentLinkedQueue<>();

  /**
   * Every run of {@code settle} that started, and every one that ended: "started|ended slot node".
   */
  static final Queue<String> SETTLES = new ConcurrentLinkedQueue<>();

  /** Every run of {@code report}: "slot node". */
  static final Queue<String> REPORTS = new ConcurrentLinkedQueue<>();

  /** The nodes whose {@code settle} stalls, until their latch is counted down. */
  static final Map<String, CountDownLatch> STALLED = new ConcurrentHashMap<>();

  private final String node;

  public ScheduledJobs(@Value("${test.node}") String node) {
    this.node = node;
  }

  @Idempotent(lease = "2s")
  @Scheduled(fixedRateString = "${test.tick-rate:3600000}")
  public void tick() {
    TICKS.add(MDC.get("idem.key") + " " + node);
  }

  /** Transactional: a run taken over from a dead node must run inside its advice too. */
  @Idempotent(lease = "2s")
  @Scheduled(fixedRateString = "${test.settle-rate:3600000}")
  @org.springframework.transaction.annotation.Transactional
  public void settle() {
    String slot = MDC.get("idem.key");
    SETTLES.add("started " + slot + " " + node);
    CountDownLatch stall = STALLED.get(node);
    if (stall != null) {
      // a process that died here: interrupts change nothing, only the test lets it go
      while (stall.getCount() > 0) {
        try {
          stall.await();
        } catch (InterruptedException ignored) {
          // keeps stalling
        }
      }
      return;
    }
    boolean inTransaction =
        org.springframework.transaction.support.TransactionSynchronizationManager
            .isActualTransactionActive();
    SETTLES.add("ended " + slot + " " + node + (inTransaction ? "" : " outside its transaction"));
  }

  /** Daily at 03:00 UTC: a test's nodes only ever run it to catch up the latest slot. */
  @Idempotent
  @Scheduled(cron = "0 0 3 * * *", zone = "UTC")
  public void report() {
    REPORTS.add(MDC.get("idem.key") + " " + node);
  }

  static List<String> endedSettles() {
    return SETTLES.stream().filter(s -> s.startsWith("ended ")).toList();
  }
}
