package dev.idem.redis;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.redis.internal.RedisKeys;
import dev.idem.testsupport.net.FaultProxy;
import dev.idem.testsupport.net.SilentPartitionCheck;
import dev.idem.testsupport.net.StalledCall;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The standalone Redis store reached through a {@link FaultProxy}: a lost connection or a silent
 * partition fails typed, the engine then fails closed, and the store works again once Lettuce has
 * reconnected. Just over 400 lines: each fault is a short test of its own on one proxy.
 */
class RedisFaultProxyIT {

  private static final String PREFIX = "idem-fault-proxy-it:";
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration LEASE = Duration.ofMillis(500);
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration HANGING_COMMAND_TIMEOUT = Duration.ofSeconds(30);
  private static final byte[] ANSWER = {4, 5, 6};

  private FaultProxy proxy;
  private RedisClient client;
  private RedisIdempotencyStore store;

  @BeforeEach
  void connectThroughTheProxy() {
    RedisURI server = RedisURI.create(RedisTestServers.STANDALONE_URI);
    proxy = FaultProxy.start(server.getHost(), server.getPort());
    RedisURI proxied = proxiedUri();
    proxied.setTimeout(COMMAND_TIMEOUT);
    client = RedisClient.create(proxied);
    store = RedisIdempotencyStore.create(client, PREFIX);
  }

  @AfterEach
  void removeEverything() {
    store.close();
    client.shutdown();
    proxy.close();
    RedisClient direct = RedisTestServers.standaloneClient();
    try (StatefulRedisConnection<String, String> connection = direct.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(PREFIX + "*"));
        if (!page.getKeys().isEmpty()) {
          redis.del(page.getKeys().toArray(String[]::new));
        }
        cursor = page;
      } while (!cursor.isFinished());
    } finally {
      direct.shutdown();
    }
  }

  @Test
  void aCutDuringAClaimFailsTypedAndTheStoreRecoversAfterReconnecting() throws Exception {
    ClaimRequest request = request();
    assertThat(store.find(request.key())).isEmpty();
    proxy.latency(Duration.ofSeconds(1));
    long before = proxy.bytesForwarded();

    CompletableFuture<ClaimResult> claim =
        CompletableFuture.supplyAsync(() -> now(store.claim(request)));
    // the claim has reached Redis; its answer is held back by the latency when we cut
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> proxy.bytesForwarded() > before);
    assertThat(proxy.cut()).isPositive();

    assertThatThrownBy(claim::get)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(IdempotencyStoreException.class)
        .hasCauseInstanceOf(RedisException.class);

    proxy.reset();
    claimCompleteAndReplay(request);
  }

  @Test
  void aClaimWhileRedisIsUnreachableFailsTypedAndTheStoreRecoversAfterReconnecting() {
    ClaimRequest request = request();
    assertThat(store.find(request.key())).isEmpty();
    // Lettuce keeps commands sent while disconnected and sends them once it has reconnected;
    // refusing keeps it from reconnecting, so the claim waits out the command timeout
    proxy.refuse(true);
    assertThat(proxy.cut()).isPositive();

    assertThatThrownBy(() -> now(store.claim(request)))
        .isInstanceOf(IdempotencyStoreException.class)
        .hasCauseInstanceOf(RedisException.class);

    proxy.reset();
    claimCompleteAndReplay(request);
  }

  @Test
  void aSilentPartitionFailsTheClaimTypedAndTheEngineDoesNotRunTheWork() {
    ClaimRequest request = request();
    assertThat(store.find(request.key())).isEmpty();
    AtomicInteger runs = new AtomicInteger();
    Idempotency engine = Idempotency.builder(store).build();
    proxy.blackhole(true);

    assertThatThrownBy(
            () ->
                engine
                    .call(request.key(), request.fingerprint())
                    .run(context -> "ran " + runs.incrementAndGet()))
        .isInstanceOf(IdempotencyStoreException.class);
    assertThat(runs).hasValue(0);
    assertThat(proxy.bytesDropped()).isPositive();

    proxy.reset();
    // The dropped commands never get a reply, and Lettuce keeps waiting for them on this
    // connection, so every later command would time out too: only a new connection heals it.
    proxy.cut();
    claimCompleteAndReplay(request);
  }

  @Test
  void aPartitionThatHoldsBytesFailsTypedAndTheStoreRecoversWithoutACut() {
    ClaimRequest request = request();
    assertThat(store.find(request.key())).isEmpty();
    proxy.hold(true);

    assertThatThrownBy(() -> now(store.claim(request)))
        .isInstanceOf(IdempotencyStoreException.class)
        .hasCauseInstanceOf(RedisException.class);

    // the held claim reaches Redis now and may take effect although its caller gave up: its lease
    // ends and the key is claimed again; no reconnect is needed, the late reply is discarded
    proxy.hold(false);
    claimCompleteAndReplay(request);
    assertThat(proxy.bytesDropped()).isZero();
  }

  @Test
  void aClaimRedisAppliesAfterItsCallerGaveUpIsGivenBackRatherThanHeldForItsLease() {
    ClaimRequest request = request(Duration.ofMinutes(10));
    proxy.hold(true);
    assertThatThrownBy(() -> now(store.claim(request)))
        .isInstanceOf(IdempotencyStoreException.class);

    // the held claim reaches Redis now and takes the key; its late answer gives it back, so the
    // retry does not find it in progress for the ten minutes of its lease
    proxy.hold(false);
    claimCompleteAndReplay(request);
  }

  @Test
  void aTokensUseGivenBackAfterItsCallerGaveUpIsIssuedAgainAndStillCounted() {
    String scope = "fault-proxy-tokens:" + UUID.randomUUID();
    IdempotencyKey token = IdempotencyKey.of(scope, UUID.randomUUID().toString());
    assertThat(store.issue(token, Duration.ofMinutes(10), 2)).isTrue();
    ClaimRequest use = new ClaimRequest(token, Fingerprint.NONE, Duration.ofMinutes(10), true, 2);
    proxy.hold(true);
    assertThatThrownBy(() -> now(store.claim(use))).isInstanceOf(IdempotencyStoreException.class);
    // the held use reaches Redis now and takes the token; its give-back puts it back to ISSUED
    proxy.hold(false);
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(() -> store.find(token).orElseThrow().state() == RecordState.ISSUED);
    RedisClient direct = RedisTestServers.standaloneClient();
    try (StatefulRedisConnection<byte[], byte[]> raw = direct.connect(ByteArrayCodec.INSTANCE)) {
      byte[] tally = new RedisKeys(PREFIX).tally(RedisKeys.digest(scope));
      // the count is moved after the give-back's answer, on another thread: none comes for a while
      await("an issued token still counts in its scope")
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(3))
          .until(() -> raw.sync().zcard(tally) == 1);
    } finally {
      direct.shutdown();
    }
    assertThat(now(store.claim(use))).isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void aClaimGivenBackToARedisThatNeverRanTheGiveBackScriptIsStillGivenBack() {
    // a restarted or fresh Redis knows no script: the claim script gets loaded by the first claim,
    // but a give-back sent by its hash would meet NOSCRIPT after Lettuce stopped listening, and
    // the key would stay in progress for its lease while the client was told "not run"
    RedisClient direct = RedisTestServers.standaloneClient();
    try (StatefulRedisConnection<String, String> connection = direct.connect()) {
      connection.sync().scriptFlush();
    } finally {
      direct.shutdown();
    }
    ClaimRequest warmUp =
        ClaimRequest.of(
            IdempotencyKey.of("fault-proxy", UUID.randomUUID().toString()),
            Fingerprint.NONE,
            Duration.ofMinutes(10));
    assertThat(now(store.claim(warmUp))).isInstanceOf(ClaimResult.Claimed.class);
    ClaimRequest request = request(Duration.ofMinutes(10));
    proxy.hold(true);
    assertThatThrownBy(() -> now(store.claim(request)))
        .isInstanceOf(IdempotencyStoreException.class);
    // the stall outlasts the give-back's own timeout too, as a Redis stopped for seconds does
    LockSupport.parkNanos(COMMAND_TIMEOUT.multipliedBy(2).toNanos());
    proxy.hold(false);
    claimCompleteAndReplay(request);
  }

  @Test
  void workWhoseRenewalsHangInASilentPartitionIsToldItsLeaseIsLostWithinAboutALease()
      throws Exception {
    // Renewals here may hang for far longer than the lease: the lost signal must not wait for them
    RedisURI slowUri = proxiedUri();
    slowUri.setTimeout(HANGING_COMMAND_TIMEOUT);
    RedisClient slowClient = RedisClient.create(slowUri);
    try (RedisIdempotencyStore slowStore = RedisIdempotencyStore.create(slowClient, PREFIX)) {
      SilentPartitionCheck.workIsToldItsLeaseIsLostBeforeAHangingRenewalGivesUp(
          slowStore, proxy, "fault-proxy");
    } finally {
      slowClient.shutdown();
    }
  }

  @Test
  void aClaimIsGivenUpOnWithinHalfItsLeaseWhateverTheClientsTimeout() {
    // with the client's 30 s command timeout a claim held by the network was waited for 30 s,
    // past its own 2 s lease: an answer then could hand out a key someone else took over
    RedisURI slowUri = proxiedUri();
    slowUri.setTimeout(HANGING_COMMAND_TIMEOUT);
    RedisClient slowClient = RedisClient.create(slowUri);
    try (RedisIdempotencyStore slowStore = RedisIdempotencyStore.create(slowClient, PREFIX)) {
      ClaimRequest request = request(Duration.ofSeconds(2));
      proxy.hold(true);
      assertTimeoutPreemptively(
          HANGING_COMMAND_TIMEOUT.dividedBy(2),
          () ->
              assertThatThrownBy(() -> now(slowStore.claim(request)))
                  .isInstanceOf(IdempotencyStoreException.class));
      proxy.hold(false);
      claimCompleteAndReplay(request);
    } finally {
      slowClient.shutdown();
    }
  }

  @Test
  void everyOtherCallIsGivenUpOnWithinTheStoresBoundWhateverTheClientsTimeout() throws Exception {
    // Lettuce's default command timeout, 60 s: twice the default lease, which a completion or a
    // read waited out in full while the network held them
    RedisURI slowUri = proxiedUri();
    slowUri.setTimeout(Duration.ofSeconds(60));
    RedisClient slowClient = RedisClient.create(slowUri);
    try (RedisIdempotencyStore slowStore = RedisIdempotencyStore.create(slowClient, PREFIX)) {
      ClaimRequest request = request(Duration.ofMinutes(1));
      ClaimResult.Claimed claimed = (ClaimResult.Claimed) now(slowStore.claim(request));
      proxy.hold(true);
      CompletableFuture<Throwable> find =
          StalledCall.failureOf(() -> slowStore.find(request.key()));
      CompletableFuture<Throwable> complete =
          StalledCall.failureOf(
              () ->
                  now(
                      slowStore.complete(
                          claimed.lease(), Outcome.success(ANSWER), Duration.ofMinutes(5))));
      // a guard against the hang, not a timing: the store's bound is 10 s
      assertThat(find.get(30, TimeUnit.SECONDS)).isInstanceOf(IdempotencyStoreException.class);
      assertThat(complete.get(30, TimeUnit.SECONDS)).isInstanceOf(IdempotencyStoreException.class);
      proxy.hold(false);
    } finally {
      slowClient.shutdown();
    }
  }

  @Test
  void asynchronousCallsHoldNoStoreThreadWhileRedisHoldsTheirClaims() throws Exception {
    RedisURI slowUri = proxiedUri();
    slowUri.setTimeout(HANGING_COMMAND_TIMEOUT);
    RedisClient slowClient = RedisClient.create(slowUri);
    ExecutorService storeCalls = Executors.newSingleThreadExecutor();
    try (RedisIdempotencyStore slowStore = RedisIdempotencyStore.create(slowClient, PREFIX);
        Idempotency engine = Idempotency.builder(slowStore).build()) {
      proxy.hold(true);
      List<CompletableFuture<Executed<String>>> calls = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        calls.add(
            engine
                .call(
                    IdempotencyKey.of("fault-proxy", UUID.randomUUID().toString()),
                    Fingerprint.NONE)
                .config(IdempotencyConfig.ofDefaults())
                .runAsync(ctx -> CompletableFuture.completedFuture("ran"), storeCalls));
      }

      // a claim that held the one store thread would hold it for the 30 s command timeout
      CompletableFuture.runAsync(() -> {}, storeCalls).get(10, TimeUnit.SECONDS);
      assertThat(calls).noneMatch(CompletableFuture::isDone);
      proxy.hold(false);
      for (CompletableFuture<Executed<String>> call : calls) {
        assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(new Executed<>("ran", false));
      }
    } finally {
      storeCalls.shutdownNow();
      slowClient.shutdown();
    }
  }

  @Test
  void asynchronousCallsHoldNoStoreThreadWhileRedisHoldsTheirOutcomes() throws Exception {
    RedisURI slowUri = proxiedUri();
    slowUri.setTimeout(HANGING_COMMAND_TIMEOUT);
    RedisClient slowClient = RedisClient.create(slowUri);
    ExecutorService storeCalls = Executors.newSingleThreadExecutor();
    try (RedisIdempotencyStore slowStore = RedisIdempotencyStore.create(slowClient, PREFIX);
        Idempotency engine = Idempotency.builder(slowStore).build()) {
      CompletableFuture<String> work = new CompletableFuture<>();
      List<IdempotencyKey> keys = new ArrayList<>();
      List<CompletableFuture<Executed<String>>> calls = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        IdempotencyKey key = IdempotencyKey.of("fault-proxy", UUID.randomUUID().toString());
        keys.add(key);
        calls.add(
            engine
                .call(key, Fingerprint.NONE)
                .config(IdempotencyConfig.custom().watchdog(false).build())
                .runAsync(ctx -> work, storeCalls));
      }
      await().atMost(WAIT).until(() -> keys.stream().allMatch(k -> slowStore.find(k).isPresent()));

      proxy.hold(true);
      work.complete("ran");
      // a completion that held the one store thread would hold it for the 30 s command timeout
      CompletableFuture.runAsync(() -> {}, storeCalls).get(10, TimeUnit.SECONDS);
      assertThat(calls).noneMatch(CompletableFuture::isDone);
      proxy.hold(false);
      for (CompletableFuture<Executed<String>> call : calls) {
        assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(new Executed<>("ran", false));
      }
      assertThat(slowStore.find(keys.get(0)))
          .hasValueSatisfying(r -> assertThat(r.state()).isEqualTo(RecordState.COMPLETED));
    } finally {
      storeCalls.shutdownNow();
      slowClient.shutdown();
    }
  }

  /** Claims (after any lease left by the fault has ended), completes, and gets the replay. */
  private void claimCompleteAndReplay(ClaimRequest request) {
    ClaimResult result =
        await()
            .atMost(WAIT)
            .ignoreExceptions()
            .until(() -> now(store.claim(request)), r -> r instanceof ClaimResult.Claimed);
    ClaimResult.Claimed claimed = (ClaimResult.Claimed) result;
    assertThat(now(store.complete(claimed.lease(), Outcome.success(ANSWER), Duration.ofMinutes(5))))
        .isTrue();
    assertThat(now(store.claim(request)))
        .isInstanceOfSatisfying(
            ClaimResult.Completed.class,
            c -> assertThat(c.record().outcome().payload()).isEqualTo(ANSWER));
  }

  /** The test server's URI, pointed at the proxy. */
  private RedisURI proxiedUri() {
    RedisURI proxied = RedisURI.create(RedisTestServers.STANDALONE_URI);
    proxied.setHost(proxy.host());
    proxied.setPort(proxy.port());
    return proxied;
  }

  private static ClaimRequest request() {
    return request(LEASE);
  }

  /** A payment's claim of a new key, with {@code lease}. */
  private static ClaimRequest request(Duration lease) {
    return ClaimRequest.of(
        IdempotencyKey.of("fault-proxy", UUID.randomUUID().toString()),
        Fingerprint.of("POST /pay", ANSWER),
        lease);
  }
}
