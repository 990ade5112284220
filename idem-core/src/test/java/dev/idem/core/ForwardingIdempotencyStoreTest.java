package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What a decorator passes on of a store that claims and settles without blocking. */
class ForwardingIdempotencyStoreTest {

  private static final Outcome ANSWER = Outcome.success(new byte[] {1});

  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final NonBlocking store = new NonBlocking();

  @Test
  void aDecoratorThatWrapsOnlyTheBlockingClaimSeesAsynchronousClaimsTooAndLosesNonBlocking() {
    IdempotencyStore decorated =
        new ForwardingIdempotencyStore(store) {
          @Override
          public ClaimResult claim(ClaimRequest request) {
            calls.add("decorator claim");
            return super.claim(request);
          }
        };

    assertThat(decorated.claimAsync(request()).join()).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(calls).containsExactly("decorator claim", "store claim");
    assertThat(decorated.capabilities())
        .contains(StoreCapability.SHARED_BETWEEN_PROCESSES)
        .doesNotContain(StoreCapability.NON_BLOCKING_CLAIM);
  }

  @Test
  void aDecoratorThatWrapsBothClaimsKeepsTheStoresNonBlockingClaim() {
    IdempotencyStore decorated =
        new ForwardingIdempotencyStore(store) {
          @Override
          public ClaimResult claim(ClaimRequest request) {
            calls.add("decorator claim");
            return super.claim(request);
          }

          @Override
          public CompletableFuture<ClaimResult> claimAsync(ClaimRequest request) {
            calls.add("decorator claimAsync");
            return super.claimAsync(request);
          }
        };

    assertThat(decorated.claimAsync(request()).join()).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(calls).containsExactly("decorator claimAsync", "store claimAsync");
    assertThat(decorated.capabilities()).contains(StoreCapability.NON_BLOCKING_CLAIM);
  }

  @Test
  void aSubclassThatWrapsOnlyTheBlockingClaimOfADecoratorThatWrapsBothIsNotPassedBy() {
    class Both extends ForwardingIdempotencyStore {
      Both() {
        super(store);
      }

      @Override
      public CompletableFuture<ClaimResult> claimAsync(ClaimRequest request) {
        calls.add("both claimAsync");
        return super.claimAsync(request);
      }

      @Override
      public ClaimResult claim(ClaimRequest request) {
        return super.claim(request);
      }
    }
    IdempotencyStore decorated =
        new Both() {
          @Override
          public ClaimResult claim(ClaimRequest request) {
            calls.add("lower claim");
            return super.claim(request);
          }
        };

    decorated.claimAsync(request()).join();
    assertThat(calls).containsExactly("both claimAsync", "lower claim", "store claim");
    assertThat(decorated.capabilities()).doesNotContain(StoreCapability.NON_BLOCKING_CLAIM);
  }

  @Test
  void aDecoratorThatWrapsNeitherPassesTheAsynchronousClaimOn() {
    IdempotencyStore decorated = new ForwardingIdempotencyStore(store) {};

    assertThat(decorated.claimAsync(request()).join()).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(calls).containsExactly("store claimAsync");
    assertThat(decorated.capabilities()).contains(StoreCapability.NON_BLOCKING_CLAIM);
  }

  @Test
  void aDecoratorThatWrapsOnlyTheBlockingCompleteSeesAsynchronousOnesTooAndLosesNonBlocking() {
    IdempotencyStore decorated =
        new ForwardingIdempotencyStore(store) {
          @Override
          public boolean complete(Lease lease, Outcome outcome, Duration retention) {
            calls.add("decorator complete");
            return super.complete(lease, outcome, retention);
          }
        };
    Lease lease = ((ClaimResult.Claimed) decorated.claim(request())).lease();

    assertThat(decorated.completeAsync(lease, ANSWER, Duration.ofMinutes(1)).join()).isTrue();
    assertThat(calls).containsExactly("store claim", "decorator complete", "store complete");
    assertThat(decorated.capabilities())
        .contains(StoreCapability.NON_BLOCKING_CLAIM)
        .doesNotContain(StoreCapability.NON_BLOCKING_SETTLEMENT);
  }

  @Test
  void aDecoratorThatWrapsOnlyTheBlockingReleaseReleasesAsynchronouslyThroughIt() {
    IdempotencyStore decorated =
        new ForwardingIdempotencyStore(store) {
          @Override
          public boolean release(Lease lease) {
            calls.add("decorator release");
            return super.release(lease);
          }
        };
    Lease lease = ((ClaimResult.Claimed) decorated.claim(request())).lease();

    assertThat(decorated.releaseAsync(lease).join()).isTrue();
    assertThat(calls).containsExactly("store claim", "decorator release", "store release");
    assertThat(decorated.capabilities()).doesNotContain(StoreCapability.NON_BLOCKING_SETTLEMENT);
  }

  @Test
  void aDecoratorThatWrapsNeitherPassesTheAsynchronousSettlementOn() {
    IdempotencyStore decorated = new ForwardingIdempotencyStore(store) {};
    Lease lease = ((ClaimResult.Claimed) decorated.claim(request())).lease();

    assertThat(decorated.completeAsync(lease, ANSWER, Duration.ofMinutes(1)).join()).isTrue();
    assertThat(calls).containsExactly("store claim", "store completeAsync");
    assertThat(decorated.capabilities()).contains(StoreCapability.NON_BLOCKING_SETTLEMENT);
  }

  private static ClaimRequest request() {
    return ClaimRequest.of(
        IdempotencyKey.of("orders", UUID.randomUUID().toString()),
        Fingerprint.NONE,
        Duration.ofSeconds(30));
  }

  /** The in-memory store, saying it claims without blocking and telling which claim ran. */
  private final class NonBlocking extends MemoryBackedStore {
    @Override
    public ClaimResult claim(ClaimRequest request) {
      calls.add("store claim");
      return memory.claim(request);
    }

    @Override
    public CompletableFuture<ClaimResult> claimAsync(ClaimRequest request) {
      calls.add("store claimAsync");
      return CompletableFuture.completedFuture(memory.claim(request));
    }

    @Override
    public Set<StoreCapability> capabilities() {
      return EnumSet.of(
          StoreCapability.SHARED_BETWEEN_PROCESSES,
          StoreCapability.NON_BLOCKING_CLAIM,
          StoreCapability.NON_BLOCKING_SETTLEMENT);
    }

    @Override
    public boolean complete(Lease lease, Outcome outcome, Duration retention) {
      calls.add("store complete");
      return memory.complete(lease, outcome, retention);
    }

    @Override
    public CompletableFuture<Boolean> completeAsync(
        Lease lease, Outcome outcome, Duration retention) {
      calls.add("store completeAsync");
      return CompletableFuture.completedFuture(memory.complete(lease, outcome, retention));
    }

    @Override
    public boolean release(Lease lease) {
      calls.add("store release");
      return memory.release(lease);
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync(Lease lease) {
      calls.add("store releaseAsync");
      return CompletableFuture.completedFuture(memory.release(lease));
    }
  }
}
