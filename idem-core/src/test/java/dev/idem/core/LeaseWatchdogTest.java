package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.internal.DuplicateWaiter;
import dev.idem.core.internal.LeaseWatchdog;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's lease watchdog when a store call blocks (a stalled Redis or database): other leases
 * are still renewed, and the blocked lease is reported lost when its end passes, not when the call
 * returns; a renewal that answers after the loss does not undo it. The leases are watched as the
 * engine watches them ({@link Ownership#start}). Every wait is for an event, with a generous upper
 * bound.
 */
class LeaseWatchdogTest {

  // long enough that a loaded machine renews a healthy lease in time (renewals every 300 ms)
  private static final Duration HEALTHY_LEASE = Duration.ofMillis(900);
  private static final Duration SHORT_LEASE = Duration.ofMillis(300);
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final TimeUnit SECONDS = TimeUnit.SECONDS;

  private final BlockingStore store = new BlockingStore(new InMemoryIdempotencyStore());
  private final LeaseWatchdog watchdog = new LeaseWatchdog();
  private final ExecutorService workers = Executors.newCachedThreadPool();
  private final Idempotency engine = Idempotency.builder(store).build();
  private final Ownership ownership =
      new Ownership(store, watchdog, new DuplicateWaiter(store), (key, outcome) -> {});

  @AfterEach
  void unblockAndStop() {
    store.unblockAll();
    watchdog.close();
    engine.close();
    workers.shutdownNow();
  }

  @Test
  void aRenewalThatBlocksOnOneKeyDoesNotStopAnotherKeysLeaseBeingRenewed() {
    EngineContext stuck = claim(HEALTHY_LEASE);
    EngineContext healthy = claim(HEALTHY_LEASE);
    store.block(stuck.key());

    watch(stuck, HEALTHY_LEASE);
    watch(healthy, HEALTHY_LEASE);
    await().atMost(WAIT).until(() -> store.blockedCalls(stuck.key()) > 0);
    int renewedBefore = store.renewals(healthy.key());

    await().atMost(WAIT).until(() -> store.renewals(healthy.key()) >= renewedBefore + 3);
    assertThat(store.blockedCalls(stuck.key())).as("the stuck renewal has not returned").isOne();
    assertThat(healthy.isLeaseLost()).isFalse();
    assertThat(healthy.lease().until()).isAfter(claimedUntil(healthy));
  }

  @Test
  void theWorkOfABlockedKeyIsToldItsLeaseIsLostWhenItsLeaseEndsNotWhenTheCallReturns()
      throws Exception {
    EngineContext stuck = claim(SHORT_LEASE);
    store.block(stuck.key());
    long watched = System.nanoTime();

    watch(stuck, SHORT_LEASE);
    stuck.leaseLost().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(stuck.isLeaseLost()).isTrue();
    assertThat(System.nanoTime() - watched).isGreaterThanOrEqualTo(SHORT_LEASE.toNanos());
    assertThat(store.blockedCalls(stuck.key())).as("the renewal is still blocked").isOne();
    assertThat(store.returnedCalls(stuck.key())).isZero();
  }

  @Test
  void aRenewalThatSucceedsAfterTheLeaseWasMarkedLostDoesNotUnloseIt() throws Exception {
    EngineContext stuck = claim(SHORT_LEASE);
    Lease claimed = stuck.lease();
    store.block(stuck.key());
    watch(stuck, SHORT_LEASE);
    stuck.leaseLost().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);

    store.unblockAll(); // the blocked call now answers "renewed"
    await().atMost(WAIT).until(() -> store.returnedCalls(stuck.key()) > 0);

    // a check that cannot fail on correct code: the lease stays lost while the late answer lands
    await()
        .during(Duration.ofMillis(300))
        .atMost(WAIT)
        .until(() -> stuck.isLeaseLost() && stuck.lease().equals(claimed));
  }

  @Test
  void theEngineTellsTheWorkItsLeaseIsLostWhileTheRenewalIsStillBlocked() throws Exception {
    IdempotencyConfig config = IdempotencyConfig.custom().lease(SHORT_LEASE).build();
    IdempotencyKey key = newKey();
    store.block(key);
    try (Idempotency engine = Idempotency.builder(store).defaults(config).build()) {
      CountDownLatch lost = new CountDownLatch(1);
      Future<String> run =
          workers.submit(
              () ->
                  engine
                      .call(key, Fingerprint.NONE)
                      .run(
                          context -> {
                            context
                                .leaseLost()
                                .toCompletableFuture()
                                .get(WAIT.toSeconds(), SECONDS);
                            lost.countDown();
                            return "lost: " + context.isLeaseLost();
                          }));

      assertThat(lost.await(WAIT.toSeconds(), SECONDS)).as("told the lease is lost").isTrue();
      assertThat(store.blockedCalls(key)).as("the renewal is still blocked").isOne();
      assertThat(store.returnedCalls(key)).isZero();
      // the work ends on its own: stored, or refused as a lost lease; either way it was told
      Object answer;
      try {
        answer = run.get(WAIT.toSeconds(), SECONDS);
      } catch (ExecutionException e) {
        answer = e.getCause();
      }
      assertThat(answer)
          .satisfiesAnyOf(
              a -> assertThat(a).isEqualTo("lost: true"),
              a -> assertThat(a).isInstanceOf(LeaseLostException.class));
    }
  }

  private EngineContext claim(Duration lease) {
    ClaimResult result = store.claim(ClaimRequest.of(newKey(), Fingerprint.NONE, lease)).join();
    Assertions.assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
    return EngineContext.owning(
        ((ClaimResult.Claimed) result).lease(),
        Fingerprint.NONE,
        engine,
        IdempotencyConfig.custom().lease(lease).build());
  }

  private void watch(EngineContext running, Duration lease) {
    ownership.start(
        running,
        ResultCodec.none(),
        IdempotencyConfig.custom().lease(lease).build(),
        Deferral.NONE);
  }

  private Instant claimedUntil(EngineContext running) {
    return store.claimedUntil(running.key());
  }

  private static IdempotencyKey newKey() {
    return IdempotencyKey.of("watchdog-test", UUID.randomUUID().toString());
  }

  /**
   * The in-memory store, except that {@code renew} of a blocked key waits until {@link
   * #unblockAll()} and then answers "renewed" without asking the store.
   */
  private static final class BlockingStore extends ForwardingIdempotencyStore {
    private final Set<IdempotencyKey> blocked = ConcurrentHashMap.newKeySet();
    private final Map<IdempotencyKey, AtomicInteger> renewals = new ConcurrentHashMap<>();
    private final Map<IdempotencyKey, AtomicInteger> blockedCalls = new ConcurrentHashMap<>();
    private final Map<IdempotencyKey, AtomicInteger> returnedCalls = new ConcurrentHashMap<>();
    private final Map<IdempotencyKey, Instant> claimedUntil = new ConcurrentHashMap<>();
    private final CountDownLatch unblock = new CountDownLatch(1);

    BlockingStore(IdempotencyStore delegate) {
      super(delegate);
    }

    void block(IdempotencyKey key) {
      blocked.add(key);
    }

    void unblockAll() {
      unblock.countDown();
    }

    int renewals(IdempotencyKey key) {
      return count(renewals, key);
    }

    int blockedCalls(IdempotencyKey key) {
      return count(blockedCalls, key);
    }

    int returnedCalls(IdempotencyKey key) {
      return count(returnedCalls, key);
    }

    Instant claimedUntil(IdempotencyKey key) {
      return claimedUntil.get(key);
    }

    @Override
    public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
      ClaimResult result = super.claim(request).join();
      if (result instanceof ClaimResult.Claimed claimed) {
        claimedUntil.put(request.key(), claimed.lease().until());
      }
      return CompletableFuture.completedFuture(result);
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
      IdempotencyKey key = lease.key();
      if (!blocked.contains(key)) {
        Optional<Lease> renewed = super.renew(lease, leaseDuration);
        renewed.ifPresent(r -> counter(renewals, key).incrementAndGet());
        return renewed;
      }
      counter(blockedCalls, key).incrementAndGet();
      try {
        unblock.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      counter(returnedCalls, key).incrementAndGet();
      return Optional.of(lease.withUntil(Instant.now().plus(Duration.ofHours(1))));
    }

    private static AtomicInteger counter(Map<IdempotencyKey, AtomicInteger> map, IdempotencyKey k) {
      return map.computeIfAbsent(k, x -> new AtomicInteger());
    }

    private static int count(Map<IdempotencyKey, AtomicInteger> map, IdempotencyKey key) {
      AtomicInteger n = map.get(key);
      return n == null ? 0 : n.get();
    }
  }
}
