package dev.idem.bench;

import dev.idem.testsupport.Machine;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Idem's Redis and JDBC locks against the locks a user would otherwise pick (Redisson, Spring
 * Integration's registries, ShedLock), in one run on the same Redis and PostgreSQL, uncontended and
 * contended, with the work under each lock checked for overlaps (two holders of one name at once: a
 * doubled effect); writes the {@code lock-peers} section of {@code docs/benchmarks.md}.
 *
 * <p>Arguments: {@code --quick} for a short, rough run; {@code --doc=PATH} to write elsewhere.
 * PostgreSQL at {@code IDEM_POSTGRES_URL}, Redis at {@code IDEM_REDIS_URI}; the run writes only its
 * own tables ({@code bench_peer_*}, dropped at the end) and keys under its own prefix (deleted at
 * the end).
 */
public final class LockPeersBench {

  /** Idem must reach this multiple of each peer's rate on the same server. */
  static final double AIM = 1.5;

  /**
   * How the threads use the locks.
   *
   * @param title the table's title
   * @param threads client threads, half on each node
   * @param waitUpTo how long a thread waits for a lock that is taken
   * @param hold how long the guarded work keeps the lock (a pause standing for a short write)
   * @param names how many lock names there are, and whether each thread has its own
   */
  record Mode(String title, int threads, Duration waitUpTo, Duration hold, int names, boolean own) {

    String lockName(int thread) {
      int n = ThreadLocalRandom.current().nextInt(names);
      return own ? "u" + thread + "-" + n : "c" + n;
    }
  }

  static final List<Mode> MODES =
      List.of(
          new Mode(
              "uncontended: 8 threads, each on 100 names of its own, no wait",
              8,
              Duration.ZERO,
              Duration.ZERO,
              100,
              true),
          new Mode(
              "contended: 64 threads on 10 names, waiting up to 10 s, work of 200 µs under the lock",
              64,
              Duration.ofSeconds(10),
              Duration.ofNanos(200_000),
              10,
              false));

  private LockPeersBench() {}

  public static void main(String[] args) throws Exception {
    RunArgs run = RunArgs.parse(args);
    boolean quick = run.quick();
    Path doc = run.doc();
    Duration warmup = quick ? Duration.ofMillis(500) : Duration.ofSeconds(2);
    Duration window = quick ? Duration.ofSeconds(1) : Duration.ofSeconds(4);
    int rounds = quick ? 1 : 3;
    Machine machine = Machine.current();
    Instant started = Instant.now();
    String url = BenchDatabase.postgresql().url();
    List<PeerRow> rows = new ArrayList<>();
    Map<String, String> stores = new LinkedHashMap<>();
    String redisVersion;
    try (RedisRig rig = RedisRig.fromEnvironment()) {
      redisVersion = rig.serverVersion();
      List<LockPeer> peers = new ArrayList<>();
      try {
        peers.addAll(RedisLockPeers.all(rig));
        peers.addAll(JdbcLockPeers.all(url));
        Map<String, LockPeer> byName = new LinkedHashMap<>();
        peers.forEach(peer -> byName.put(peer.name(), peer));
        peers.forEach(peer -> stores.put(peer.name(), peer.store()));
        for (Mode mode : MODES) {
          LoadDriver driver = new LoadDriver(mode.threads(), warmup, window);
          rows.addAll(
              PeerRow.turns(
                  rounds, byName.keySet(), name -> measure(mode, byName.get(name), driver)));
        }
      } finally {
        Peers.closeAll(peers.stream().map(LockPeer::shutdown).toList());
      }
    }
    LockPeersSection section =
        new LockPeersSection(
            rows,
            stores,
            machine,
            Machine.current().loadAverage(),
            started,
            warmup,
            window,
            rounds,
            redisVersion);
    List<String> lines = section.lines(BenchCharts.folder(doc));
    run.publish("lock-peers", lines);
  }

  /**
   * One turn of {@code peer} in {@code mode}: the calls that got their lock, those that did not,
   * and the overlaps the guarded work found. Each thread of the turn gets an index: even ones use
   * node 0, odd ones node 1, and uncontended names carry it, so it keeps them for the whole turn.
   */
  static PeerRow measure(Mode mode, LockPeer peer, LoadDriver driver) throws InterruptedException {
    Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
    LongAdder calls = new LongAdder();
    LongAdder refused = new LongAdder();
    LongAdder refusedInWindow = new LongAdder();
    LongAdder doubled = new LongAdder();
    long start = System.nanoTime() + driver.warmup().toNanos();
    long end = start + driver.window().toNanos();
    AtomicInteger threads = new AtomicInteger();
    ThreadLocal<Integer> index = ThreadLocal.withInitial(threads::getAndIncrement);
    LoadDriver.Result result =
        driver.run(
            () -> {
              int thread = index.get();
              String lock = mode.lockName(thread);
              LockPeer.Release release = peer.take().tryLock(thread % 2, lock, mode.waitUpTo());
              calls.increment();
              if (release == null) {
                refused.increment();
                long now = System.nanoTime();
                if (now >= start && now < end) {
                  refusedInWindow.increment();
                }
                return;
              }
              AtomicInteger held = holders.computeIfAbsent(lock, name -> new AtomicInteger());
              try {
                if (held.incrementAndGet() > 1) {
                  doubled.increment();
                }
                if (!mode.hold().isZero()) {
                  LockSupport.parkNanos(mode.hold().toNanos());
                }
              } finally {
                held.decrementAndGet();
                release.release();
              }
            });
    return new PeerRow(
        mode.title(),
        peer.name(),
        result,
        result.operations() - refusedInWindow.sum(),
        calls.sum(),
        refused.sum(),
        doubled.sum(),
        0);
  }
}
