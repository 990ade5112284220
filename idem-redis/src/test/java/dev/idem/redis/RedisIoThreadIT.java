package dev.idem.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;

/**
 * An asynchronous claim ends on Lettuce's I/O thread, and so does a waiter woken by Redis' notice:
 * nothing the store or the engine runs there may wait for a lock. Under BlockHound, as a WebFlux
 * application's tests run, such a wait is refused mid-way and leaves the lock broken, so that every
 * later call that needs it hangs. The JDK scheduler's queue takes its lock on every insert and
 * removal, so this test counts touching it from an I/O thread as blocking, beside BlockHound's own
 * list. BlockHound only records here (it lets the call go on), so no lock is broken for the other
 * tests of this JVM.
 */
class RedisIoThreadIT {

  private static final String QUEUE =
      "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue";
  private static final List<String> blocked = new CopyOnWriteArrayList<>();

  private static RedisClient client;
  private static RedisIdempotencyStore store;
  private static ExecutorService storeCalls;

  @BeforeAll
  static void setUp() {
    BlockHound.builder()
        .markAsBlocking(QUEUE, "remove", "(Ljava/lang/Object;)Z")
        .markAsBlocking(QUEUE, "offer", "(Ljava/lang/Runnable;)Z")
        .nonBlockingThreadPredicate(
            current ->
                current.or(
                    thread ->
                        thread.getName().startsWith("lettuce-")
                            && thread.getName().contains("EventLoop")))
        .blockingMethodCallback(
            method -> blocked.add(method + " on " + Thread.currentThread().getName()))
        .install();
    client = RedisTestServers.standaloneClient();
    store = RedisIdempotencyStore.create(client, "idem-io-" + UUID.randomUUID() + ":");
    storeCalls = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void tearDown() {
    storeCalls.shutdownNow();
    store.close();
    client.shutdown();
  }

  @BeforeEach
  void forgetEarlierTests() {
    blocked.clear();
  }

  @Test
  void asynchronousClaimsEndOnTheIoThreadWithoutWaitingForALock() throws Exception {
    List<CompletableFuture<ClaimResult>> claims = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      IdempotencyKey key = IdempotencyKey.of("io", UUID.randomUUID().toString());
      claims.add(
          CompletableFuture.supplyAsync(
                  () -> store.claim(ClaimRequest.of(key, Fingerprint.NONE, lease())), storeCalls)
              .thenCompose(claim -> claim));
    }
    for (CompletableFuture<ClaimResult> claim : claims) {
      assertThat(claim.get(20, TimeUnit.SECONDS)).isInstanceOf(ClaimResult.Claimed.class);
    }
    assertThat(blocked).isEmpty();
  }

  @Test
  void aWaiterWokenByRedisNoticeWaitsForNoLockOnTheIoThread() throws Exception {
    IdempotencyConfig waits =
        IdempotencyConfig.custom().waitInProgress(Duration.ofSeconds(20)).build();
    IdempotencyKey key = IdempotencyKey.of("io", UUID.randomUUID().toString());
    CompletableFuture<String> held = new CompletableFuture<>();
    // two engines: the duplicate's is not told locally, so only Redis' notice wakes it
    try (Idempotency first = Idempotency.builder(store).build();
        Idempotency second = Idempotency.builder(store).build()) {
      CompletableFuture<Executed<String>> running =
          first.call(key, Fingerprint.NONE).config(waits).runAsync(ctx -> held, storeCalls);
      CompletableFuture<Executed<String>> waiting =
          runningThenDuplicate(second, key, waits, running);
      held.complete("ran once");
      assertThat(running.get(20, TimeUnit.SECONDS)).isEqualTo(new Executed<>("ran once", false));
      assertThat(waiting.get(20, TimeUnit.SECONDS)).isEqualTo(new Executed<>("ran once", true));
    }
    assertThat(blocked).isEmpty();
  }

  // The duplicate, sent once the first call holds the key, so that it waits.
  private static CompletableFuture<Executed<String>> runningThenDuplicate(
      Idempotency engine,
      IdempotencyKey key,
      IdempotencyConfig waits,
      CompletableFuture<Executed<String>> running) {
    await().atMost(Duration.ofSeconds(20)).until(() -> store.find(key).isPresent());
    assertThat(running).isNotDone();
    return engine
        .call(key, Fingerprint.NONE)
        .config(waits)
        .runAsync(ctx -> CompletableFuture.completedFuture("ran twice"), storeCalls);
  }

  private static Duration lease() {
    return Duration.ofSeconds(30);
  }
}
