package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A decorator wraps each call once, and every call of the engine, blocking or not, passes through
 * it; what the store is (its capabilities, its transaction, its notices) is the store's.
 */
class ForwardingIdempotencyStoreTest {

  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore();
  private final IdempotencyStore decorated =
      new ForwardingIdempotencyStore(memory) {
        @Override
        public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
          calls.add("claim");
          return super.claim(request);
        }

        @Override
        public CompletableFuture<Boolean> complete(
            Lease lease, Outcome outcome, Duration retention) {
          calls.add("complete");
          return super.complete(lease, outcome, retention);
        }

        @Override
        public CompletableFuture<Boolean> release(Lease lease) {
          calls.add("release");
          return super.release(lease);
        }
      };
  private final Idempotency engine = Idempotency.builder(decorated).build();
  private final ExecutorService storeCalls = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    engine.close();
    storeCalls.shutdownNow();
  }

  @Test
  void theBlockingCallClaimsAndCompletesThroughTheDecorator() {
    engine.call(key(), Fingerprint.NONE).run(ctx -> "done");

    assertThat(calls).containsExactly("claim", "complete");
  }

  @Test
  void theAsynchronousCallClaimsAndReleasesThroughTheDecorator() {
    CompletableFuture<Executed<String>> call =
        engine
            .call(key(), Fingerprint.NONE)
            .config(engine.defaults())
            .runAsync(
                ctx -> CompletableFuture.failedFuture(new IllegalStateException("retry me")),
                storeCalls);

    assertThat(call).failsWithin(Duration.ofSeconds(10));
    assertThat(calls).containsExactly("claim", "release");
  }

  @Test
  void whatTheStoreIsIsTheDelegates() {
    assertThat(decorated.capabilities()).isEqualTo(memory.capabilities());
    assertThat(decorated.joinsCurrentTransaction()).isFalse();
    assertThat(((ForwardingIdempotencyStore) decorated).delegate()).isSameAs(memory);
  }

  @Test
  void aDecoratorThatWrapsNothingPassesEveryCallOn() {
    IdempotencyStore plain = new ForwardingIdempotencyStore(memory) {};
    IdempotencyKey key = key();

    ClaimResult claimed = plain.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE)).join();
    Lease lease = ((ClaimResult.Claimed) claimed).lease();

    assertThat(plain.complete(lease, Outcome.success(new byte[] {1}), LEASE).join()).isTrue();
    assertThat(memory.find(key)).hasValueSatisfying(r -> assertThat(r.fence()).isEqualTo(1));
    assertThat(plain.release(lease).join()).isFalse();
  }

  private static final Duration LEASE = Duration.ofSeconds(30);

  private static IdempotencyKey key() {
    return IdempotencyKey.of("payments", UUID.randomUUID().toString());
  }
}
