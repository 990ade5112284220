package dev.idem.bench;

import static dev.idem.testsupport.Stages.now;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.LocalReplayCache;
import dev.idem.core.store.Outcome;
import dev.idem.redis.RedisIdempotencyStore;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;

/**
 * The record scenarios: raw {@code SET NX PX} and {@code GET} on Lettuce, the physical limit, and
 * Idem's claim and complete on {@link RedisIdempotencyStore} over the same kind of connection (one,
 * shared by every thread). The engine rows show what {@link Idempotency#call} adds on top.
 *
 * <p>The scenarios that write a new key per operation write under prefixes of their own ({@link
 * #FRESH_KEYS}), which the benchmark deletes after each of them: every scenario starts on the same
 * small keyspace. So first calls go through a store of their own, on a prefix apart from the keys
 * that the replay scenarios read (one store's table of replay hints is then not filled with the
 * first calls' keys; a replayed key that lost its hint costs one claim, once).
 */
final class RedisStoreScenarios implements AutoCloseable {

  /** Keys that the read scenarios pick from at random. */
  static final int READ_KEYS = 1000;

  static final Duration LEASE = Duration.ofSeconds(30);

  /** Key prefixes, after the run's, of the keys the first-call scenarios write. */
  static final List<String> FRESH_KEYS = List.of("set:", "pair:", "idem-new:");

  /**
   * Replaces the value of {@code KEYS[1]} with {@code ARGV[2]} for {@code ARGV[3]} ms if it still
   * holds the owner {@code ARGV[1]}; answers 1, else 0. Redis 7.0 has no compare-and-set command,
   * so an owner-checked write is a script. The hand-written floors of both benchmarks use it.
   */
  static final String REPLACE_IF_OWNED =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then"
          + " redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end return 0";

  // Shorter than the default day, so that keys a failed clean-up leaves behind go within the hour;
  // the length of the retention changes nothing in the cost of a call.
  static final Duration RETENTION = Duration.ofHours(1);

  private static final String SCOPE = "orders:create:alice";

  // What a small service stores per request: a receipt id; the raw GET reads the same bytes.
  private static final String RESULT = "receipt-2026-000000000042";
  private static final byte[] RESULT_BYTES = RESULT.getBytes(StandardCharsets.UTF_8);

  private final RedisRig rig;
  private final RedisCommands<String, String> raw;
  private final String replaceIfOwnedSha;
  private final RedisIdempotencyStore store;
  private final Idempotency engine;
  private final LocalReplayCache cached;
  private final Idempotency cachedEngine;
  private final RedisIdempotencyStore freshStore;
  private final Idempotency freshEngine;
  private final IdempotencyConfig config;

  RedisStoreScenarios(RedisRig rig) {
    this.rig = rig;
    this.raw = rig.raw();
    this.replaceIfOwnedSha = raw.scriptLoad(REPLACE_IF_OWNED);
    this.store = RedisIdempotencyStore.create(rig.client(), rig.prefix() + "idem:");
    this.engine = Idempotency.builder(store).build();
    // the starter's default window: an entry is read again from Redis each second
    this.cached = LocalReplayCache.in(store).window(Duration.ofSeconds(1)).build();
    this.cachedEngine = Idempotency.builder(cached).build();
    this.freshStore = RedisIdempotencyStore.create(rig.client(), rig.prefix() + "idem-new:");
    this.freshEngine = Idempotency.builder(freshStore).build();
    this.config = IdempotencyConfig.custom().retention(RETENTION).build();
  }

  /** {@code SET key value NX PX 30000} of a key never used before. */
  RedisLoadDriver.Op rawSet() {
    SetArgs args = SetArgs.Builder.nx().px(LEASE.toMillis());
    return (thread, seq) -> {
      String reply = raw.set(rig.prefix() + "set:" + thread + ":" + seq, RESULT, args);
      if (!"OK".equals(reply)) {
        throw new IllegalStateException("fresh key not set: " + reply);
      }
      return true;
    };
  }

  /**
   * The least that a claim and a completion with an owner check can send on Redis 7.0: {@code SET
   * key owner NX PX 30000} of a fresh key, then a script that replaces the value with the outcome
   * for the retention if the key still holds that owner ({@code GET}, {@code SET PX}). No fence, no
   * fingerprint, no record format, no hint table: the floor under Idem's pair, as the minimal lock
   * is under Idem's lock.
   */
  RedisLoadDriver.Op minimalPair() {
    SetArgs args = SetArgs.Builder.nx().px(LEASE.toMillis());
    String retention = Long.toString(RETENTION.toMillis());
    return (thread, seq) -> {
      String key = rig.prefix() + "pair:" + thread + ":" + seq;
      ThreadLocalRandom random = ThreadLocalRandom.current();
      String owner = new UUID(random.nextLong(), random.nextLong()).toString();
      if (!"OK".equals(raw.set(key, owner, args))) {
        throw new IllegalStateException("fresh key not set");
      }
      Long replaced =
          raw.evalsha(
              replaceIfOwnedSha,
              ScriptOutputType.INTEGER,
              new String[] {key},
              owner,
              RESULT,
              retention);
      if (replaced == null || replaced != 1) {
        throw new IllegalStateException("own claim not completed");
      }
      return true;
    };
  }

  /** {@code GET} of one of {@link #READ_KEYS} existing keys, holding the same bytes as a replay. */
  RedisLoadDriver.Op rawGet() {
    for (int i = 0; i < READ_KEYS; i++) {
      raw.set(getKey(i), RESULT);
    }
    return (thread, seq) -> {
      String value = raw.get(getKey(ThreadLocalRandom.current().nextInt(READ_KEYS)));
      if (value == null) {
        throw new IllegalStateException("read key missing");
      }
      return true;
    };
  }

  /** Claim of a fresh key, then complete with a small outcome: the two round trips of a call. */
  RedisLoadDriver.Op claimComplete() {
    return (thread, seq) -> {
      pair(freshStore, IdempotencyKey.of(SCOPE, "p-" + thread + "-" + seq));
      return true;
    };
  }

  /**
   * {@link #claimComplete()} with a cap on the scope, as the starter sets for every caller of an
   * HTTP route: the claim and completion scripts also count the record in the scope's tally. The
   * starter's cap of 10 000 live records; each thread is one caller whose scope changes every 5,000
   * keys, so the cap is never reached and no tally grows past what a capped caller's can.
   */
  RedisLoadDriver.Op claimCompleteCapped() {
    return (thread, seq) -> {
      IdempotencyKey key = IdempotencyKey.of(SCOPE + ":" + thread + ":" + seq / 5_000, "c-" + seq);
      ClaimResult result =
          now(freshStore.claim(new ClaimRequest(key, Fingerprint.NONE, LEASE, false, 10_000)));
      if (!(result instanceof ClaimResult.Claimed claimed)) {
        throw new IllegalStateException("fresh key not claimed: " + result);
      }
      if (!now(freshStore.complete(claimed.lease(), Outcome.success(RESULT_BYTES), RETENTION))) {
        throw new IllegalStateException("own claim not completed");
      }
      return true;
    };
  }

  /** Claim of one of {@link #READ_KEYS} completed keys: the record comes back as Completed. */
  RedisLoadDriver.Op replay() {
    return replayOn(store, RedisStoreScenarios::replayKey);
  }

  /**
   * {@link #replay()} through {@link LocalReplayCache}: a claim of a completed key answered from
   * memory, by the store's rules, with a read of Redis when an entry's window has passed.
   */
  RedisLoadDriver.Op cachedReplay() {
    return replayOn(cached, RedisStoreScenarios::cachedKey);
  }

  // completes READ_KEYS keys in Redis, then claims them at random through `claims`
  private RedisLoadDriver.Op replayOn(IdempotencyStore claims, IntFunction<IdempotencyKey> keys) {
    for (int i = 0; i < READ_KEYS; i++) {
      pair(store, keys.apply(i));
    }
    return (thread, seq) -> {
      IdempotencyKey key = keys.apply(ThreadLocalRandom.current().nextInt(READ_KEYS));
      ClaimResult result = now(claims.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE)));
      if (!(result instanceof ClaimResult.Completed)) {
        throw new IllegalStateException("replay gave " + result);
      }
      return true;
    };
  }

  /** {@code Idempotency.execute} on a fresh key: claim, watchdog, work, encode, complete. */
  RedisLoadDriver.Op engineFirstCall() {
    return (thread, seq) -> {
      freshEngine
          .call(IdempotencyKey.of(SCOPE, "e-" + thread + "-" + seq), Fingerprint.NONE)
          .config(config)
          .run(ctx -> RESULT);
      return true;
    };
  }

  /** {@code Idempotency.execute} on a completed key: one claim, then the stored result decoded. */
  RedisLoadDriver.Op engineReplay() {
    return engineReplayOn(engine);
  }

  /** {@link #engineReplay()} over {@link LocalReplayCache}. */
  RedisLoadDriver.Op engineCachedReplay() {
    return engineReplayOn(cachedEngine);
  }

  private RedisLoadDriver.Op engineReplayOn(Idempotency replays) {
    // Keys of their own: the engine's codec frames the bytes it stores, which the store-level
    // replay keys, completed with the bare bytes, do not carry. Completed once, replays after.
    for (int i = 0; i < READ_KEYS; i++) {
      engine.call(engineKey(i), Fingerprint.NONE).config(config).run(ctx -> RESULT);
    }
    return (thread, seq) -> {
      String result =
          replays
              .call(engineKey(ThreadLocalRandom.current().nextInt(READ_KEYS)), Fingerprint.NONE)
              .config(config)
              .run(
                  ctx -> {
                    throw new IllegalStateException("a replay ran the work");
                  });
      if (!result.equals(RESULT)) {
        throw new IllegalStateException("replay gave " + result);
      }
      return true;
    };
  }

  private static void pair(RedisIdempotencyStore store, IdempotencyKey key) {
    ClaimResult result = now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE)));
    if (!(result instanceof ClaimResult.Claimed claimed)) {
      throw new IllegalStateException("fresh key not claimed: " + result);
    }
    if (!now(store.complete(claimed.lease(), Outcome.success(RESULT_BYTES), RETENTION))) {
      throw new IllegalStateException("completion refused");
    }
  }

  private String getKey(int i) {
    return rig.prefix() + "get:" + i;
  }

  private static IdempotencyKey replayKey(int i) {
    return IdempotencyKey.of(SCOPE, "r-" + i);
  }

  private static IdempotencyKey cachedKey(int i) {
    return IdempotencyKey.of(SCOPE, "cr-" + i);
  }

  private static IdempotencyKey engineKey(int i) {
    return IdempotencyKey.of(SCOPE, "er-" + i);
  }

  @Override
  public void close() {
    try {
      engine.close();
      cachedEngine.close();
      freshEngine.close();
    } finally {
      store.close();
      freshStore.close();
    }
  }
}
