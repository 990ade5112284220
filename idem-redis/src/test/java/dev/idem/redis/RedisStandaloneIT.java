package dev.idem.redis;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.lock.LockHandle;
import dev.idem.core.lock.LockProvider;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordChangeNotifier;
import dev.idem.core.store.RecordState;
import dev.idem.redis.internal.LuaScripts;
import dev.idem.redis.internal.RecordClaims;
import dev.idem.redis.internal.RecordValue;
import dev.idem.redis.internal.RedisKeys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store, token, engine and lock contracts on a standalone Redis, plus Redis specifics: the
 * record's format, fences, the plain {@code SET} claim and the scope's tally, each a short test
 * (longer than 500 lines for their number).
 */
class RedisStandaloneIT extends RedisBackendTests {

  private static RedisClient client;
  private static RedisIdempotencyStore store;
  private static RedisLockProvider locks;
  private static RedisResumeLog resumeLog;

  @BeforeAll
  static void connect() {
    client = RedisTestServers.standaloneClient();
    store = RedisIdempotencyStore.create(client);
    locks = RedisLockProvider.create(client);
    resumeLog = RedisResumeLog.create(client);
  }

  @AfterAll
  static void disconnect() {
    locks.close();
    resumeLog.close();
    store.close();
    client.shutdown();
  }

  @Override
  IdempotencyStore store() {
    return store;
  }

  @Override
  IdempotencyStore storeOnClock(Clock clock) {
    return RedisIdempotencyStore.create(client, RedisKeys.DEFAULT_PREFIX, clock);
  }

  @Override
  LockProvider locks() {
    return locks;
  }

  @Override
  Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
    return StandaloneStoreFactory.class;
  }

  @Test
  void aClaimThatReachesRedisAfterItsGiveBackClaimsNothing() {
    // a claim sent again after NOSCRIPT can land after the give-back its caller sent on giving up;
    // it must not leave an in-progress record nobody owns for the lease
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "late");
    String owner = "owner-" + UUID.randomUUID();
    RedisKeys keys = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
    byte[][] both = {
      keys.record(key), RedisKeys.bytes("idem:{" + key.digest() + "}:given-back:" + owner)
    };
    try (StatefulRedisConnection<byte[], byte[]> raw = client.connect(ByteArrayCodec.INSTANCE)) {
      Long given =
          raw.sync()
              .eval(
                  LuaScripts.GIVE_BACK.bytes(),
                  ScriptOutputType.INTEGER,
                  both,
                  RedisKeys.bytes(owner),
                  RedisKeys.bytes(60_000L),
                  keys.changeChannel(),
                  RedisKeys.bytes(key.digest()));
      assertThat(given).isZero();
      List<Object> late =
          raw.sync()
              .eval(
                  LuaScripts.CLAIM.bytes(),
                  ScriptOutputType.MULTI,
                  both,
                  RedisKeys.bytes(key.scope()),
                  RedisKeys.bytes(key.value()),
                  RedisKeys.bytes(""),
                  RedisKeys.bytes(30_000L),
                  RedisKeys.bytes("0"),
                  RedisKeys.bytes(owner),
                  RedisKeys.bytes("0"));
      assertThat(new String((byte[]) late.get(0), java.nio.charset.StandardCharsets.UTF_8))
          .isEqualTo("G");
      assertThat(raw.sync().exists(keys.record(key))).isZero();
    }
    assertThat(now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30)))))
        .isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void aCappedClaimOfAFreshKeyThatReachesRedisAfterItsGiveBackClaimsAndCountsNothing() {
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "late");
    String owner = RecordClaims.COUNTED + UUID.randomUUID();
    RedisKeys keys = new RedisKeys(RedisKeys.DEFAULT_PREFIX);
    byte[] mark = RedisKeys.bytes("idem:{" + key.digest() + "}:given-back:" + owner);
    byte[] tally = keys.tally(RedisKeys.digest(key.scope()));
    try (StatefulRedisConnection<byte[], byte[]> raw = client.connect(ByteArrayCodec.INSTANCE)) {
      raw.sync()
          .eval(
              LuaScripts.GIVE_BACK.bytes(),
              ScriptOutputType.INTEGER,
              new byte[][] {keys.record(key), mark},
              RedisKeys.bytes(owner),
              RedisKeys.bytes(60_000L),
              keys.changeChannel(),
              RedisKeys.bytes(key.digest()));
      List<Object> late =
          raw.sync()
              .eval(
                  LuaScripts.CLAIM_NEW_COUNTED.bytes(),
                  ScriptOutputType.MULTI,
                  new byte[][] {keys.record(key), mark, tally},
                  RedisKeys.bytes("S1:PF1:1O" + owner.length() + ":" + owner + "L5:30000"),
                  RedisKeys.bytes(60_000L),
                  RedisKeys.bytes(10),
                  RedisKeys.bytes(key.digest()));
      assertThat(new String((byte[]) late.get(0), java.nio.charset.StandardCharsets.UTF_8))
          .isEqualTo("G");
      assertThat(raw.sync().exists(keys.record(key))).isZero();
      assertThat(raw.sync().zcard(tally)).isZero();
    }
  }

  @Test
  void aRecordAnEarlierVersionClaimedWithAPlainSetIsStillRead() {
    // earlier versions claimed a fresh key with SET NX PX 2×lease and its lease length L instead
    // of times; during a rolling upgrade this version's scripts still apply the rules to it
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "k");
    Fingerprint fingerprint = Fingerprint.of("POST /old", "a");
    byte[] old =
        new RecordValue.Writer()
            .field('S', "P")
            .field('F', 7L)
            .field('O', "old-owner")
            .field('L', 30_000L)
            .field('P', fingerprint.value())
            .field('A', key.scope())
            .field('V', key.value())
            .toBytes();
    try (StatefulRedisConnection<byte[], byte[]> raw = client.connect(ByteArrayCodec.INSTANCE)) {
      byte[] name = RedisKeys.bytes("idem:{" + key.digest() + "}");
      raw.sync().set(name, old, SetArgs.Builder.nx().px(60_000));
    }
    IdempotencyRecord found = store.find(key).orElseThrow();
    assertThat(found.state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(found.fence()).isEqualTo(7L);
    assertThat(Duration.between(Instant.now(), found.leaseUntil()))
        .isBetween(Duration.ofSeconds(25), Duration.ofSeconds(31));
    ClaimRequest same = ClaimRequest.of(key, fingerprint, Duration.ofSeconds(30));
    assertThat(now(store.claim(same))).isInstanceOf(ClaimResult.InProgress.class);
    assertThat(
            now(
                store.claim(
                    ClaimRequest.of(
                        key, Fingerprint.of("POST /old", "b"), Duration.ofSeconds(30)))))
        .isInstanceOf(ClaimResult.Mismatch.class);
  }

  @Test
  void aRecordIsOneStringUnderAHashTaggedDigestThatExpires() {
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "k");
    ClaimRequest request = ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30));
    Lease lease = ((ClaimResult.Claimed) now(store.claim(request))).lease();
    try (StatefulRedisConnection<byte[], byte[]> raw = client.connect(ByteArrayCodec.INSTANCE)) {
      byte[] name = RedisKeys.bytes("idem:{" + key.digest() + "}");
      assertThat(raw.sync().type(name)).isEqualTo("string");
      assertThat(raw.sync().pttl(name)).isBetween(30_000L, 60_000L);
      RecordValue claimed = RecordValue.parse(raw.sync().get(name));
      assertThat(claimed.text('S')).isEqualTo("P");
      assertThat(claimed.text('A')).isEqualTo(key.scope());
      if (claimed.has('L')) {
        assertThat(claimed.number('L')).as("a plain SET's lease length").isEqualTo(30_000L);
      } else {
        assertThat(claimed.number('E') - claimed.number('U')).isEqualTo(30_000L);
      }
      now(store.complete(lease, Outcome.success(new byte[] {':', '9', 0}), Duration.ofMinutes(5)));
      assertThat(raw.sync().pttl(name)).isBetween(60_000L, 300_000L);
      RecordValue completed = RecordValue.parse(raw.sync().get(name));
      assertThat(completed.text('S')).isEqualTo("C");
      assertThat(completed.bytes('B')).containsExactly(':', '9', 0);
      assertThat(completed.has('O')).isFalse();
    }
  }

  @Test
  void aScopesTallyHoldsItsLiveRecordsAndEndsWithTheLastOfThem() {
    String scope = "redis-it:" + UUID.randomUUID();
    byte[] tally = RedisKeys.bytes("idem:scope:{" + RedisKeys.digest(scope) + "}");
    Duration lease = Duration.ofSeconds(30);
    Lease kept = claimCapped(IdempotencyKey.of(scope, "kept"), lease);
    Lease released = claimCapped(IdempotencyKey.of(scope, "released"), lease);
    try (StatefulRedisConnection<byte[], byte[]> raw = client.connect(ByteArrayCodec.INSTANCE)) {
      assertThat(raw.sync().zcard(tally)).isEqualTo(2);
      assertThat(raw.sync().pttl(tally)).as("two leases").isBetween(50_000L, 60_000L);
      assertThat(now(store.complete(kept, Outcome.success(new byte[] {1}), Duration.ofMinutes(5))))
          .isTrue();
      assertThat(raw.sync().pttl(tally)).as("the retention").isBetween(290_000L, 300_000L);
      assertThat(raw.sync().zscore(tally, RedisKeys.bytes(kept.key().digest())))
          .isGreaterThan(System.currentTimeMillis() + 290_000.0);
      assertThat(now(store.release(released))).isTrue();
      assertThat(raw.sync().zcard(tally)).as("the released record no longer counts").isEqualTo(1);
      assertThatThrownBy(
              () ->
                  now(
                      store.claim(
                          new ClaimRequest(
                              IdempotencyKey.of(scope, "refused"),
                              Fingerprint.NONE,
                              lease,
                              false,
                              1))))
          .isInstanceOf(dev.idem.core.StoreFullException.class);
      assertThat(raw.sync().zcard(tally)).as("nothing counted for the refused key").isEqualTo(1);
      assertThat(
              raw.sync()
                  .exists(
                      RedisKeys.bytes(
                          "idem:{" + IdempotencyKey.of(scope, "refused").digest() + "}")))
          .as("nor written")
          .isZero();
      byte[] marks =
          RedisKeys.bytes(
              "idem:{" + IdempotencyKey.of(scope, "refused").digest() + "}:given-back:*");
      // a give-back would follow the refusal on another thread: none comes for a while
      await("nor marked given back: a full scope is an answer, not a lost claim")
          .during(Duration.ofMillis(200))
          .atMost(Duration.ofSeconds(2))
          .until(() -> raw.sync().keys(marks).isEmpty());
    }
  }

  private Lease claimCapped(IdempotencyKey key, Duration lease) {
    ClaimResult result =
        now(store.claim(new ClaimRequest(key, Fingerprint.NONE, lease, false, 10)));
    return ((ClaimResult.Claimed) result).lease();
  }

  @Test
  void onceItReadTheServersClockAStoreClaimsAFreshKeyWithOnePlainSetFencedByThatClock()
      throws Exception {
    try (RedisIdempotencyStore fresh =
            RedisIdempotencyStore.create(client, "idem-set-it:", Clock.systemUTC());
        StatefulRedisConnection<byte[], byte[]> raw = client.connect(ByteArrayCodec.INSTANCE)) {
      String scope = "redis-it:" + UUID.randomUUID();
      Duration lease = Duration.ofSeconds(30);
      // the first claims go to the script while the store's first reading of TIME is on its way
      AtomicInteger tries = new AtomicInteger();
      long[] before = new long[1];
      Lease[] leases = new Lease[1];
      RecordValue[] records = new RecordValue[1];
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(5))
          .until(
              () -> {
                IdempotencyKey key = IdempotencyKey.of(scope, "k" + tries.getAndIncrement());
                before[0] = serverMicros(raw);
                leases[0] =
                    ((ClaimResult.Claimed)
                            now(fresh.claim(ClaimRequest.of(key, Fingerprint.of("a"), lease))))
                        .lease();
                records[0] =
                    RecordValue.parse(
                        raw.sync().get(RedisKeys.bytes("idem-set-it:{" + key.digest() + "}")));
                return records[0].has('L');
              });
      long serverBefore = before[0];
      Lease lease0 = leases[0];
      RecordValue claimed = records[0];
      long serverAfter = serverMicros(raw);
      assertThat(claimed.number('L')).isEqualTo(30_000L);
      assertThat(claimed.has('U') || claimed.has('E')).isFalse();
      assertThat(lease0.fence())
          .as(
              "a fence from the server's clock as read here: never behind it, ahead by a round trip"
                  + " at most")
          .isBetween(serverBefore, serverAfter + 50_000);
      byte[] name = RedisKeys.bytes("idem-set-it:{" + lease0.key().digest() + "}");
      assertThat(raw.sync().pttl(name)).isBetween(59_000L, 60_000L);
      IdempotencyRecord found = fresh.find(lease0.key()).orElseThrow();
      assertThat(found.state()).isEqualTo(RecordState.IN_PROGRESS);
      assertThat(found.fingerprint()).isEqualTo(Fingerprint.of("a"));
      assertThat(found.leaseUntil().toEpochMilli())
          .isBetween(serverBefore / 1000 + 29_000, serverAfter / 1000 + 31_000);
      assertThat(now(fresh.claim(ClaimRequest.of(lease0.key(), Fingerprint.of("b"), lease))))
          .as("the script reads what the SET wrote")
          .isInstanceOf(ClaimResult.Mismatch.class);
      assertThat(
              now(fresh.complete(lease0, Outcome.success(new byte[] {7}), Duration.ofMinutes(5))))
          .isTrue();
      IdempotencyKey other = IdempotencyKey.of(scope, "completed-elsewhere");
      completeElsewhere(other, lease);
      assertThat(now(fresh.claim(ClaimRequest.of(other, Fingerprint.of("a"), lease))))
          .as("a SET that finds a completed record answers it, nothing written")
          .isInstanceOf(ClaimResult.Completed.class);
      IdempotencyKey third = IdempotencyKey.of(scope, "completed-elsewhere-too");
      completeElsewhere(third, lease);
      assertThat(now(fresh.claim(ClaimRequest.of(third, Fingerprint.of("b"), lease))))
          .as("and checks its fingerprint as the script would")
          .isInstanceOf(ClaimResult.Mismatch.class);
    }
  }

  @Test
  void onceItReadTheServersClockACappedClaimOfAFreshKeyCountsAndSetsItInOneShortScript() {
    try (RedisIdempotencyStore fresh =
            RedisIdempotencyStore.create(client, "idem-set-it:", Clock.systemUTC());
        StatefulRedisConnection<byte[], byte[]> raw = client.connect(ByteArrayCodec.INSTANCE)) {
      Duration lease = Duration.ofSeconds(30);
      String warm = "redis-it:" + UUID.randomUUID();
      AtomicInteger tries = new AtomicInteger();
      // the first claims go to the claim script while the store's first reading of TIME is on its
      // way
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(5))
          .until(
              () -> {
                IdempotencyKey key = IdempotencyKey.of(warm, "k" + tries.getAndIncrement());
                now(fresh.claim(new ClaimRequest(key, Fingerprint.of("a"), lease, false, 1000)));
                return RecordValue.parse(raw.sync().get(recordName(key))).has('L');
              });
      String scope = "redis-it:" + UUID.randomUUID();
      byte[] tally = RedisKeys.bytes("idem-set-it:scope:{" + RedisKeys.digest(scope) + "}");
      IdempotencyKey first = IdempotencyKey.of(scope, "first");
      long serverBefore = serverMicros(raw);
      Lease claimed =
          ((ClaimResult.Claimed)
                  now(fresh.claim(new ClaimRequest(first, Fingerprint.of("a"), lease, false, 2))))
              .lease();
      long serverAfter = serverMicros(raw);
      RecordValue record = RecordValue.parse(raw.sync().get(recordName(first)));
      assertThat(record.number('L')).isEqualTo(30_000L);
      assertThat(record.has('U') || record.has('E')).isFalse();
      assertThat(claimed.owner()).startsWith(RecordClaims.COUNTED);
      assertThat(claimed.fence()).isBetween(serverBefore, serverAfter + 50_000);
      Double counted = raw.sync().zscore(tally, RedisKeys.bytes(first.digest()));
      long keyEnds = System.currentTimeMillis() + raw.sync().pttl(recordName(first));
      assertThat(counted).as("counted until the key ends").isCloseTo(keyEnds, within(1_000.0));
      assertThat(now(fresh.claim(new ClaimRequest(first, Fingerprint.of("a"), lease, false, 2))))
          .as("a key that holds a record goes on to the claim script")
          .isInstanceOf(ClaimResult.InProgress.class);
      assertThat(now(fresh.claim(new ClaimRequest(first, Fingerprint.of("b"), lease, false, 2))))
          .isInstanceOf(ClaimResult.Mismatch.class);

      IdempotencyKey second = IdempotencyKey.of(scope, "second");
      Lease released =
          ((ClaimResult.Claimed)
                  now(fresh.claim(new ClaimRequest(second, Fingerprint.NONE, lease, false, 2))))
              .lease();
      assertThat(raw.sync().zcard(tally)).isEqualTo(2);
      IdempotencyKey refused = IdempotencyKey.of(scope, "refused");
      assertThatThrownBy(
              () -> now(fresh.claim(new ClaimRequest(refused, Fingerprint.NONE, lease, false, 2))))
          .isInstanceOf(dev.idem.core.StoreFullException.class);
      assertThat(raw.sync().exists(recordName(refused))).as("nothing written").isZero();
      assertThat(raw.sync().zcard(tally)).as("nothing counted").isEqualTo(2);
      assertThat(now(fresh.release(released))).isTrue();
      assertThat(raw.sync().zcard(tally)).isEqualTo(1);
      Lease again =
          ((ClaimResult.Claimed)
                  now(fresh.claim(new ClaimRequest(second, Fingerprint.NONE, lease, false, 2))))
              .lease();
      assertThat(again.fence())
          .as("a released record's fence, kept in its key, is passed by the claim script")
          .isGreaterThan(released.fence());

      assertThat(
              now(fresh.complete(claimed, Outcome.success(new byte[] {7}), Duration.ofMinutes(5))))
          .isTrue();
      assertThat(raw.sync().zscore(tally, RedisKeys.bytes(first.digest())))
          .as("a completion counts for its retention")
          .isGreaterThan(System.currentTimeMillis() + 290_000.0);
      IdempotencyKey elsewhere = IdempotencyKey.of(scope, "completed-elsewhere");
      completeElsewhere(elsewhere, lease);
      assertThat(
              now(fresh.claim(new ClaimRequest(elsewhere, Fingerprint.of("a"), lease, false, 2))))
          .as("a completed record is answered whatever the tally holds, nothing written")
          .isInstanceOf(ClaimResult.Completed.class);
      assertThat(
              now(fresh.claim(new ClaimRequest(elsewhere, Fingerprint.of("b"), lease, false, 2))))
          .isInstanceOf(ClaimResult.Mismatch.class);
    }
  }

  private static byte[] recordName(IdempotencyKey key) {
    return RedisKeys.bytes("idem-set-it:{" + key.digest() + "}");
  }

  // Claims and completes key with fingerprint "a" through a store of its own on the same prefix.
  private static void completeElsewhere(IdempotencyKey key, Duration lease) {
    try (RedisIdempotencyStore elsewhere =
        RedisIdempotencyStore.create(client, "idem-set-it:", Clock.systemUTC())) {
      Lease theirs =
          ((ClaimResult.Claimed)
                  now(elsewhere.claim(ClaimRequest.of(key, Fingerprint.of("a"), lease))))
              .lease();
      now(elsewhere.complete(theirs, Outcome.success(new byte[] {8}), Duration.ofMinutes(5)));
    }
  }

  private static long serverMicros(StatefulRedisConnection<byte[], byte[]> raw) {
    List<byte[]> time = raw.sync().time();
    return Long.parseLong(new String(time.get(0))) * 1_000_000
        + Long.parseLong(new String(time.get(1)));
  }

  @Test
  void aFreshClaimIsOneSetAndItsLeaseEndsByTheKeysExpiry() {
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "k");
    Duration lease = Duration.ofSeconds(30);
    long before = System.currentTimeMillis();
    Lease claimed =
        ((ClaimResult.Claimed) now(store.claim(ClaimRequest.of(key, Fingerprint.of("a"), lease))))
            .lease();
    assertThat(claimed.fence() / 1000)
        .as("fence: the server's clock in microseconds, as read here (behind by a round trip)")
        .isBetween(before - 1_000, before + 10_000);
    assertThat(claimed.until().toEpochMilli()).isBetween(before + 29_000, before + 40_000);
    IdempotencyRecord found = store.find(key).orElseThrow();
    assertThat(found.state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(found.fingerprint()).isEqualTo(Fingerprint.of("a"));
    assertThat(found.expiresAt()).isEqualTo(found.leaseUntil().plus(lease));
    assertThat(found.leaseUntil().toEpochMilli()).isBetween(before + 29_000, before + 40_000);
    assertThat(now(store.claim(ClaimRequest.of(key, Fingerprint.of("a"), lease))))
        .isInstanceOf(ClaimResult.InProgress.class);
    assertThat(store.renew(claimed, lease)).isPresent();
    assertThat(now(store.release(claimed))).isTrue();
    assertThat(store.find(key)).isEmpty();
    Lease next =
        ((ClaimResult.Claimed) now(store.claim(ClaimRequest.of(key, Fingerprint.of("b"), lease))))
            .lease();
    assertThat(next.fence())
        .as("after a release, from the kept fence")
        .isGreaterThan(claimed.fence());
  }

  @Test
  void aLockIsALeaseKeyThatEndsWithTheLeaseBesideAFenceCounterThatOutlivesIt() throws Exception {
    String name = "redis-it-lock:" + UUID.randomUUID();
    String base = "idem:lock:{" + RedisKeys.digest(name) + "}:";
    try (StatefulRedisConnection<String, String> raw = client.connect()) {
      LockHandle first = locks.tryLock(name, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
      assertThat(raw.sync().get(base + "lease")).isEqualTo(first.owner());
      assertThat(raw.sync().pttl(base + "lease")).isBetween(1L, 30_000L);
      assertThat(raw.sync().pttl(base + "fence"))
          .isGreaterThan(RedisLockProvider.DEFAULT_FENCE_RETENTION.toMillis());
      first.close();
      assertThat(raw.sync().exists(base + "lease")).isZero();
      LockHandle second = locks.tryLock(name, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
      assertThat(second.fence()).isGreaterThan(first.fence());
      second.close();
    }
  }

  @Test
  void aLockLeftByAnEarlierVersionIsHonouredAndItsFenceGrowsPastTheCounter() throws Exception {
    String name = "redis-it-lock:" + UUID.randomUUID();
    String base = "idem:lock:{" + RedisKeys.digest(name) + "}:";
    try (StatefulRedisConnection<String, String> raw = client.connect()) {
      // What an earlier version leaves: a lease key holding its owner, a counter, a waiter mark.
      raw.sync().set(base + "lease", UUID.randomUUID().toString(), SetArgs.Builder.px(30_000));
      long ahead = System.currentTimeMillis() * 1000 + 3_600_000_000L; // an hour past the clock
      raw.sync().set(base + "fence", Long.toString(ahead), SetArgs.Builder.px(60_000));
      raw.sync().set(base + "waits", "1", SetArgs.Builder.px(30_000));

      assertThat(locks.tryLock(name, Duration.ZERO, Duration.ofSeconds(30))).isEmpty();
      raw.sync().del(base + "lease");
      LockHandle taken = locks.tryLock(name, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();

      assertThat(taken.fence()).isEqualTo(ahead + 1);
      taken.close();
      assertThat(raw.sync().exists(base + "lease", base + "waits")).isZero();
    }
  }

  @Test
  void aRepeatOfAKeyCompletedHereIsAnsweredFromRedisNotFromMemory() {
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "k");
    ClaimRequest request = ClaimRequest.of(key, Fingerprint.of("a"), Duration.ofSeconds(30));
    Lease lease = ((ClaimResult.Claimed) now(store.claim(request))).lease();
    now(store.complete(lease, Outcome.success(new byte[] {7}), Duration.ofMinutes(1)));
    assertThat(now(store.claim(request))).isInstanceOf(ClaimResult.Completed.class);
    assertThat(now(store.claim(ClaimRequest.of(key, Fingerprint.of("b"), Duration.ofSeconds(30)))))
        .isInstanceOf(ClaimResult.Mismatch.class);
    try (StatefulRedisConnection<String, String> raw = client.connect()) {
      raw.sync().del("idem:{" + key.digest() + "}");
    }
    assertThat(now(store.claim(request))).isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void anotherStoreThatWaitsHearsOfTheCompletion() throws Exception {
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "k");
    ClaimRequest request = ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30));
    Lease lease = ((ClaimResult.Claimed) now(store.claim(request))).lease();
    try (RedisIdempotencyStore otherNode = RedisIdempotencyStore.create(client)) {
      CountDownLatch changed = new CountDownLatch(1);
      try (RecordChangeNotifier.Subscription sub = otherNode.onChange(key, changed::countDown)) {
        assertThat(now(otherNode.claim(request))).isInstanceOf(ClaimResult.InProgress.class);
        assertThat(changed.getCount()).isEqualTo(1);
        now(store.complete(lease, Outcome.success(new byte[] {1}), Duration.ofMinutes(1)));
        assertThat(changed.await(5, TimeUnit.SECONDS)).isTrue();
      }
    }
  }

  @Test
  void aCompletionKeepsWhatTheRecordCarriedAndWakesTheWaiterWhoMarkedIt() throws Exception {
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "k");
    Duration lease = Duration.ofSeconds(30);
    assertThat(store.issue(key, Duration.ofMinutes(5))).isTrue();
    ClaimRequest token = new ClaimRequest(key, Fingerprint.of("a"), lease, true);
    Lease claimed = ((ClaimResult.Claimed) now(store.claim(token))).lease();
    Lease renewed = store.renew(claimed, lease).orElseThrow();
    try (RedisIdempotencyStore otherNode = RedisIdempotencyStore.create(client)) {
      CountDownLatch changed = new CountDownLatch(1);
      try (RecordChangeNotifier.Subscription sub = otherNode.onChange(key, changed::countDown)) {
        assertThat(now(otherNode.claim(token))).isInstanceOf(ClaimResult.InProgress.class);
        assertThat(now(store.complete(renewed, Outcome.failure(new byte[] {'V', '1'}), lease)))
            .isTrue();
        assertThat(changed.await(5, TimeUnit.SECONDS)).isTrue();
      }
    }
    IdempotencyRecord done = store.find(key).orElseThrow();
    assertThat(done.state()).isEqualTo(RecordState.COMPLETED);
    assertThat(done.fingerprint()).isEqualTo(Fingerprint.of("a"));
    assertThat(done.token()).isTrue();
    assertThat(done.fence()).isEqualTo(claimed.fence());
    assertThat(done.outcome().kind()).isEqualTo(Outcome.Kind.FAILURE);
    assertThat(done.outcome().payload()).containsExactly('V', '1');
    assertThat(now(store.claim(ClaimRequest.of(key, Fingerprint.of("b"), lease))))
        .isInstanceOf(ClaimResult.Mismatch.class);
    try (StatefulRedisConnection<byte[], byte[]> raw = client.connect(ByteArrayCodec.INSTANCE)) {
      RecordValue stored =
          RecordValue.parse(raw.sync().get(RedisKeys.bytes("idem:{" + key.digest() + "}")));
      assertThat(stored.text('A')).isEqualTo(key.scope());
      assertThat(stored.text('V')).isEqualTo("k");
      assertThat(stored.has('W')).isFalse();
      assertThat(stored.has('U')).isFalse();
    }
  }

  @Test
  void aKeyHoldingAnythingButARecordValueIsAStoreFailureNotAClaim() {
    IdempotencyKey key = IdempotencyKey.of("redis-it:" + UUID.randomUUID(), "k");
    String name = "idem:{" + key.digest() + "}";
    ClaimRequest request = ClaimRequest.of(key, Fingerprint.NONE, Duration.ofSeconds(30));
    try (StatefulRedisConnection<String, String> raw = client.connect()) {
      raw.sync().hset(name, "st", "C");
      raw.sync().pexpire(name, 60_000);
      assertThatThrownBy(() -> now(store.claim(request)))
          .isInstanceOf(IdempotencyStoreException.class);
      raw.sync().del(name);
      raw.sync().set(name, "S1:CZ", SetArgs.Builder.px(60_000));
      assertThatThrownBy(() -> now(store.claim(request)))
          .isInstanceOf(IdempotencyStoreException.class);
      raw.sync().del(name);
    }
  }

  @Test
  void anUnreachableRedisIsAStoreFailure() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    RedisURI uri = RedisURI.create("redis://127.0.0.1:" + closedPort);
    uri.setTimeout(Duration.ofSeconds(1));
    RedisClient nowhere = RedisClient.create(uri);
    try {
      assertThatThrownBy(() -> RedisIdempotencyStore.create(nowhere))
          .isInstanceOf(IdempotencyStoreException.class);
      assertThatThrownBy(() -> RedisLockProvider.create(nowhere))
          .isInstanceOf(IdempotencyStoreException.class);
    } finally {
      nowhere.shutdown();
    }
  }

  @Test
  void rejectsAKeyPrefixThatWouldMoveTheHashTag() {
    assertThatThrownBy(() -> RedisIdempotencyStore.create(client, "app:{x}:"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Override
  ResumeLog resumeLog() {
    return resumeLog;
  }

  @Override
  Class<? extends Supplier<ResumeLog>> crashLogFactory() {
    return StandaloneResumeLogFactory.class;
  }
}
