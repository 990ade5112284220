package dev.idem.bench;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What {@link Idempotency#call} adds to a call, on the in-memory store with the default config
 * (watchdog on): a first call that claims a new key, runs the work and stores its result; a replay
 * of a completed key; and, for comparison, the same work called directly. The difference between an
 * engine benchmark and {@link #direct} from the same run is the engine's cost per call.
 *
 * <p>Single-threaded on purpose: this measures the path length of one call, not contention.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EngineOverheadBenchmark {

  /** Benchmark names, as {@link BenchReport} finds them in the results. */
  static final String DIRECT = "direct";

  static final String FIRST_CALL = "firstCall";
  static final String REPLAY = "replay";
  static final String FIRST_CALL_JSON_FINGERPRINT = "firstCallJsonFingerprint";
  static final String FIRST_CALL_SHORT_RETENTION = "firstCallShortRetention";
  static final String FIRST_CALL_WITH_STEP = "firstCallWithStep";

  private static final String SCOPE = "orders:create:alice";
  private static final String REPLAYED_VALUE = "replayed-key";
  private static final String ROUTE = "POST /orders";
  private static final String BODY =
      "{\"sku\": \"A-1042\", \"quantity\": 2, \"price\": 19.90, \"currency\": \"EUR\"}";

  // Records are never evicted before their 24 h retention, so every first call grows the store;
  // the bound only has to stay above what one iteration can insert.
  private static final int MAX_ENTRIES = 50_000_000;

  // Records that expire almost at once, so that the sweep keeps the store small: the steady state
  // of a service whose retention is short next to its request rate.
  private static final IdempotencyConfig SHORT_RETENTION =
      IdempotencyConfig.custom().retention(Duration.ofMillis(1)).build();

  private InMemoryIdempotencyStore store;
  private Idempotency engine;
  private long counter;

  /**
   * A fresh store and engine per iteration, so that each iteration starts from an empty map and the
   * previous iteration's records can be collected.
   */
  @Setup(Level.Iteration)
  public void startEngine() {
    store = new InMemoryIdempotencyStore(Clock.systemUTC(), MAX_ENTRIES);
    engine = Idempotency.builder(store).build();
    engine.call(replayedKey(), Fingerprint.NONE).run(ctx -> receipt(0));
  }

  /** Stops the engine's watchdog thread. */
  @TearDown(Level.Iteration)
  public void stopEngine() {
    engine.close();
  }

  /** The work alone: the baseline every engine benchmark is compared with. */
  @Benchmark
  public void direct(Blackhole bh) {
    bh.consume(receipt(++counter));
  }

  /** A new key each call: claim, watchdog, work, encode and complete. */
  @Benchmark
  public void firstCall(Blackhole bh) {
    long n = ++counter;
    bh.consume(
        engine
            .call(IdempotencyKey.of(SCOPE, Long.toString(n)), Fingerprint.NONE)
            .run(ctx -> receipt(n)));
  }

  /** A key completed in setup: claim finds it completed and the stored result is decoded. */
  @Benchmark
  public void replay(Blackhole bh) {
    long n = ++counter;
    bh.consume(engine.call(replayedKey(), Fingerprint.NONE).run(ctx -> receipt(n)));
  }

  /** As {@link #firstCall}, with the fingerprint of a small JSON body computed per call. */
  @Benchmark
  public void firstCallJsonFingerprint(Blackhole bh) {
    long n = ++counter;
    bh.consume(
        engine
            .call(IdempotencyKey.of(SCOPE, Long.toString(n)), Fingerprint.ofJson(ROUTE, BODY))
            .run(ctx -> receipt(n)));
  }

  /**
   * As {@link #firstCall}, with a retention of 1 ms: not a realistic config, but it tells the
   * engine's own cost from that of a map growing by hundreds of thousands of records a second.
   */
  @Benchmark
  public void firstCallShortRetention(Blackhole bh) {
    long n = ++counter;
    bh.consume(
        engine
            .call(IdempotencyKey.of(SCOPE, Long.toString(n)), Fingerprint.NONE)
            .config(SHORT_RETENTION)
            .run(ctx -> receipt(n)));
  }

  /**
   * As {@link #firstCall}, with the work's result made in one step ({@code ctx.step}): the cost of
   * a recovery point, one more claim and completion, set against a plain call.
   */
  @Benchmark
  public void firstCallWithStep(Blackhole bh) {
    long n = ++counter;
    bh.consume(
        engine
            .call(IdempotencyKey.of(SCOPE, Long.toString(n)), Fingerprint.NONE)
            .run(ctx -> ctx.step("charge", step -> receipt(n))));
  }

  // Built on each call from the request's header in real use, so built on each call here too.
  private static IdempotencyKey replayedKey() {
    return IdempotencyKey.of(SCOPE, REPLAYED_VALUE);
  }

  // Small but not free, so that the JIT cannot fold the work away in the direct case.
  private static String receipt(long n) {
    return "receipt-" + n;
  }
}
