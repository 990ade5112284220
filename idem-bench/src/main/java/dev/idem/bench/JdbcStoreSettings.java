package dev.idem.bench;

import java.time.Duration;

/**
 * How long and how often {@link JdbcStoreBench} measures.
 *
 * @param warmup the load of each scenario's warmup
 * @param round the load of each scenario's turn in a round: a settling time, then the window
 * @param rounds how many rounds run
 * @param replayKeys how many completed keys the replay scenario picks from
 * @param countedOps how many single operations of each scenario are counted
 * @param quick whether these are the short, rough settings
 */
record JdbcStoreSettings(
    LoadDriver warmup,
    LoadDriver round,
    int rounds,
    int replayKeys,
    int countedOps,
    boolean quick) {

  /** Connections in the pool, and threads driving the load. */
  static final int THREADS = 8;

  /** 5 s of warmup per scenario, then ten rounds of 1 s windows: 10 s measured per scenario. */
  static JdbcStoreSettings full() {
    return new JdbcStoreSettings(
        new LoadDriver(THREADS, Duration.ZERO, Duration.ofSeconds(5)),
        new LoadDriver(THREADS, Duration.ofMillis(500), Duration.ofSeconds(1)),
        10,
        10_000,
        1_000,
        false);
  }

  /** A short run that shows the benchmark works; its figures are rough. */
  static JdbcStoreSettings quickRun() {
    return new JdbcStoreSettings(
        new LoadDriver(THREADS, Duration.ZERO, Duration.ofMillis(500)),
        new LoadDriver(THREADS, Duration.ofMillis(200), Duration.ofSeconds(1)),
        2,
        1_000,
        200,
        true);
  }
}
