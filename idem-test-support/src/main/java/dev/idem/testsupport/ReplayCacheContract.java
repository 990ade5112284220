package dev.idem.testsupport;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.LocalReplayCache;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link LocalReplayCache} in front of a backend's store, as two instances of an application keep
 * one each: a repeat of a completed key is answered without a round trip, by the store's rules; a
 * record in progress never is; and once an eviction on one instance is acknowledged, no instance
 * replays the record. Every test works under keys of its own, so backends may share one store.
 */
public abstract class ReplayCacheContract {

  /** How long a record read may be replayed from a cache in this suite. */
  protected static final Duration WINDOW = Duration.ofMillis(150);

  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final Duration RETENTION = Duration.ofHours(1);

  /** The store under test, shared by both instances' caches. */
  protected abstract IdempotencyStore store();

  private final String scope = "cache-" + UUID.randomUUID();
  private final AtomicInteger claims = new AtomicInteger();
  private final AtomicInteger batches = new AtomicInteger();
  private final AtomicInteger completions = new AtomicInteger();

  /**
   * An instance's cache, over a decorator that counts the claims and completions reaching the store
   * one by one, and the batches reaching it whole.
   */
  private LocalReplayCache instance() {
    return LocalReplayCache.in(counted()).window(WINDOW).build();
  }

  private IdempotencyStore counted() {
    return new ForwardingIdempotencyStore(store()) {
      @Override
      public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
        claims.incrementAndGet();
        return super.claim(request);
      }

      @Override
      public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
        completions.incrementAndGet();
        return super.complete(lease, outcome, retention);
      }

      @Override
      public List<CompletableFuture<ClaimResult>> claimAll(List<ClaimRequest> requests) {
        batches.incrementAndGet();
        return delegate().claimAll(requests);
      }

      @Override
      public List<CompletableFuture<Boolean>> completeAll(List<IdempotencyStore.Completion> all) {
        batches.incrementAndGet();
        return delegate().completeAll(all);
      }
    };
  }

  private IdempotencyKey key() {
    return IdempotencyKey.of(scope, "k-" + UUID.randomUUID());
  }

  private static Fingerprint print(String body) {
    return Fingerprint.of("cache", body.getBytes(StandardCharsets.UTF_8));
  }

  private static ClaimRequest request(IdempotencyKey key, Fingerprint fingerprint) {
    return ClaimRequest.of(key, fingerprint, LEASE);
  }

  private void complete(
      IdempotencyStore store, IdempotencyKey key, Fingerprint print, String body) {
    Lease lease = ((ClaimResult.Claimed) now(store.claim(request(key, print)))).lease();
    assertThat(
            now(
                store.complete(
                    lease, Outcome.success(body.getBytes(StandardCharsets.UTF_8)), RETENTION)))
        .isTrue();
  }

  @Test
  void aRepeatOfACompletedKeyIsAnsweredWithoutARoundTrip() {
    LocalReplayCache cache = instance();
    IdempotencyKey key = key();
    complete(cache, key, print("a"), "moved 10");

    ClaimResult first = now(cache.claim(request(key, print("a"))));
    int reached = claims.get();
    ClaimResult again = now(cache.claim(request(key, print("a"))));

    assertThat(first).isInstanceOf(ClaimResult.Completed.class);
    assertThat(again).isEqualTo(first);
    assertThat(claims.get()).isEqualTo(reached);
    Outcome replayed =
        Objects.requireNonNull(((ClaimResult.Completed) again).record().outcome(), "completed");
    assertThat(new String(replayed.payload(), StandardCharsets.UTF_8)).isEqualTo("moved 10");
  }

  @Test
  void anotherFingerprintIsAMismatchFromTheCacheAsFromTheStore() {
    LocalReplayCache cache = instance();
    IdempotencyKey key = key();
    complete(cache, key, print("move 10"), "moved 10");
    now(cache.claim(request(key, print("move 10"))));

    ClaimResult fromCache = now(cache.claim(request(key, print("move 1000"))));
    ClaimResult fromStore = now(store().claim(request(key, print("move 1000"))));

    assertThat(fromCache).isInstanceOf(ClaimResult.Mismatch.class);
    assertThat(fromStore).isInstanceOf(ClaimResult.Mismatch.class);
  }

  @Test
  void aRecordInProgressIsNeverAnsweredFromTheCache() {
    LocalReplayCache cache = instance();
    IdempotencyKey key = key();
    Lease lease = ((ClaimResult.Claimed) now(cache.claim(request(key, print("a"))))).lease();

    assertThat(now(cache.claim(request(key, print("a")))))
        .isInstanceOf(ClaimResult.InProgress.class);
    int reached = claims.get();
    assertThat(now(cache.claim(request(key, print("a")))))
        .isInstanceOf(ClaimResult.InProgress.class);
    assertThat(claims.get()).isEqualTo(reached + 1);

    now(cache.complete(lease, Outcome.success(new byte[] {'r'}), RETENTION));
    assertThat(now(cache.claim(request(key, print("a")))))
        .isInstanceOf(ClaimResult.Completed.class);
  }

  @Test
  void aKeyEvictedOnOneInstanceIsReplayedByNoneOnceTheEvictionReturns() {
    LocalReplayCache first = instance();
    LocalReplayCache second = instance();
    IdempotencyKey key = key();
    complete(first, key, print("a"), "charged once");
    ClaimResult held = now(second.claim(request(key, print("a"))));
    now(first.claim(request(key, print("a"))));
    long fence = ((ClaimResult.Completed) held).record().fence();

    assertThat(first.evict(key, RecordState.COMPLETED, fence)).isTrue();

    // the second instance held the answer and was told nothing: the eviction waited it out
    ClaimResult afterwards = now(second.claim(request(key, print("a"))));
    assertThat(afterwards).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(now(first.claim(request(key, print("a")))))
        .isInstanceOf(ClaimResult.InProgress.class);
  }

  @Test
  void aTokenUseFindsWhatTheStoreWouldFind() {
    LocalReplayCache cache = instance();
    IdempotencyKey plain = key();
    complete(cache, plain, print("a"), "done");
    now(cache.claim(request(plain, print("a"))));

    ClaimResult asToken = now(cache.claim(new ClaimRequest(plain, print("a"), LEASE, true)));
    ClaimResult fromStore = now(store().claim(new ClaimRequest(plain, print("a"), LEASE, true)));

    assertThat(asToken).isInstanceOf(ClaimResult.UnknownToken.class);
    assertThat(fromStore).isInstanceOf(ClaimResult.UnknownToken.class);
  }

  @Test
  void anAnswerIsForgottenAfterTheWindowAndReadAgain() throws InterruptedException {
    LocalReplayCache cache = instance();
    IdempotencyKey key = key();
    complete(cache, key, print("a"), "done");
    now(cache.claim(request(key, print("a"))));
    int reached = claims.get();

    // the window is the longest an evicted answer may be replayed: wait past it
    Thread.sleep(WINDOW.toMillis() * 2);
    assertThat(now(cache.claim(request(key, print("a")))))
        .isInstanceOf(ClaimResult.Completed.class);
    assertThat(claims.get()).isEqualTo(reached + 1);
  }

  @Test
  void aStepsAnswerNeverAnswersItsRoot() {
    LocalReplayCache cache = instance();
    IdempotencyKey root = key();
    IdempotencyKey step = root.step("charge");
    complete(cache, step, Fingerprint.NONE, "charged");

    assertThat(now(cache.claim(request(step, Fingerprint.NONE))))
        .isInstanceOf(ClaimResult.Completed.class);
    assertThat(now(cache.claim(request(step, Fingerprint.NONE))))
        .isInstanceOf(ClaimResult.Completed.class);

    // the root was never claimed: whatever record the store named the step's answer after
    assertThat(now(cache.claim(request(root, Fingerprint.NONE))))
        .isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void aRetentionOfCenturiesIsReplayedToo() {
    LocalReplayCache cache = instance();
    IdempotencyKey key = key();
    Lease lease = ((ClaimResult.Claimed) now(cache.claim(request(key, print("a"))))).lease();
    now(cache.complete(lease, Outcome.success(new byte[] {'r'}), Duration.ofDays(365L * 400)));

    assertThat(now(cache.claim(request(key, print("a")))))
        .isInstanceOf(ClaimResult.Completed.class);
    assertThat(now(cache.claim(request(key, print("a")))))
        .isInstanceOf(ClaimResult.Completed.class);
  }

  @Test
  void anInterruptedWaitStillWaitsOutTheWindow() {
    LocalReplayCache first = instance();
    LocalReplayCache second = instance();
    IdempotencyKey key = key();
    complete(first, key, print("a"), "once");
    long fence =
        ((ClaimResult.Completed) now(second.claim(request(key, print("a"))))).record().fence();
    // evicted another way (an operator's tool on the undecorated store), then forgotten here
    assertThat(store().evict(key, RecordState.COMPLETED, fence)).isTrue();

    Thread.currentThread().interrupt();
    try {
      first.forget(key, RecordState.COMPLETED);
    } finally {
      assertThat(Thread.interrupted()).isTrue();
    }

    assertThat(now(second.claim(request(key, print("a"))))).isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void keysLeftOutAlwaysGoToTheStore() {
    IdempotencyKey key = key();
    LocalReplayCache cache =
        LocalReplayCache.in(
                new ForwardingIdempotencyStore(store()) {
                  @Override
                  public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
                    claims.incrementAndGet();
                    return super.claim(request);
                  }
                })
            .window(WINDOW)
            .only(k -> !k.equals(key))
            .build();
    complete(cache, key, print("a"), "done");
    now(cache.claim(request(key, print("a"))));
    int reached = claims.get();

    now(cache.claim(request(key, print("a"))));

    assertThat(claims.get()).isEqualTo(reached + 1);
  }

  @Test
  void aBatchSendsWhatTheCacheCannotAnswerToTheStoreInOneCall() {
    LocalReplayCache cache = instance();
    IdempotencyKey done = key();
    IdempotencyKey other = key();
    IdempotencyKey fresh = key();
    complete(cache, done, print("a"), "done");
    complete(cache, other, print("b"), "other");
    now(cache.claim(request(done, print("a"))));
    int reached = claims.get();
    int sent = batches.get();

    List<ClaimResult> answers =
        cache
            .claimAll(
                List.of(
                    request(done, print("a")),
                    request(fresh, print("c")),
                    request(other, print("b")),
                    request(done, print("x"))))
            .stream()
            .map(Stages::now)
            .toList();

    assertThat(answers.get(0)).isInstanceOf(ClaimResult.Completed.class);
    assertThat(answers.get(1)).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(answers.get(2)).isInstanceOf(ClaimResult.Completed.class);
    assertThat(answers.get(3)).isInstanceOf(ClaimResult.Mismatch.class);
    assertThat(((ClaimResult.Completed) answers.get(2)).record().key()).isEqualTo(other);
    assertThat(claims.get()).as("claims sent one by one").isEqualTo(reached);
    assertThat(batches.get()).as("batches sent").isEqualTo(sent + 1);
    // what the batch read is remembered as a single claim's answer would be
    assertThat(now(cache.claim(request(other, print("b")))))
        .isInstanceOf(ClaimResult.Completed.class);
    assertThat(claims.get()).isEqualTo(reached);

    Lease lease = ((ClaimResult.Claimed) answers.get(1)).lease();
    int completed = completions.get();
    List<Boolean> stored =
        cache
            .completeAll(
                List.of(
                    new IdempotencyStore.Completion(
                        lease, Outcome.success(new byte[] {'r'}), RETENTION)))
            .stream()
            .map(Stages::now)
            .toList();
    assertThat(stored).containsExactly(true);
    assertThat(completions.get()).as("completions sent one by one").isEqualTo(completed);
    assertThat(batches.get()).isEqualTo(sent + 2);
  }

  // A fault in the cache's own parts (a predicate or clock of the caller's) never fails a claim:
  // under fail-open that would run the work again for a key that is completed.
  @Test
  void aFaultInTheCachesOwnPartsSendsTheClaimToTheStore() {
    IdempotencyKey key = key();
    complete(store(), key, print("a"), "done");
    LocalReplayCache faultyPredicate =
        LocalReplayCache.in(counted())
            .window(WINDOW)
            .only(
                k -> {
                  throw new IllegalStateException("predicate broke");
                })
            .build();
    LocalReplayCache faultyClock =
        LocalReplayCache.in(counted())
            .window(WINDOW)
            .clock(
                new Clock() {
                  @Override
                  public ZoneId getZone() {
                    return ZoneOffset.UTC;
                  }

                  @Override
                  public Clock withZone(ZoneId zone) {
                    return this;
                  }

                  @Override
                  public Instant instant() {
                    throw new IllegalStateException("clock broke");
                  }
                })
            .build();

    for (LocalReplayCache cache : List.of(faultyPredicate, faultyClock)) {
      assertThat(now(cache.claim(request(key, print("a")))))
          .isInstanceOf(ClaimResult.Completed.class);
      assertThat(now(cache.claim(request(key, print("a")))))
          .isInstanceOf(ClaimResult.Completed.class);
      assertThat(
              cache.claimAll(List.of(request(key, print("a")))).stream().map(Stages::now).toList())
          .singleElement()
          .isInstanceOf(ClaimResult.Completed.class);
    }
  }
}
