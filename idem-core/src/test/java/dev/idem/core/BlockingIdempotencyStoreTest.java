package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.BlockingIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A blocking store answers its three calls as stages, and never throws past them. */
class BlockingIdempotencyStoreTest {

  private static final Lease LEASE =
      new Lease(IdempotencyKey.of("payments", "k"), 1, "owner", Instant.EPOCH);

  @Test
  void whatTheBlockingCallsThrowEndsTheStageAnErrorToo() {
    Failing store = new Failing();

    store.failure = new IdempotencyStoreException("down");
    CompletableFuture<ClaimResult> claimed =
        store.claim(ClaimRequest.of(LEASE.key(), Fingerprint.NONE, Duration.ofSeconds(1)));
    store.failure = new StackOverflowError("deep");
    CompletableFuture<Boolean> completed =
        store.complete(LEASE, Outcome.success(new byte[0]), null);

    assertThat(claimed).isCompletedExceptionally();
    assertThat(completed).isCompletedExceptionally();
    assertThat(completed.handle((value, failure) -> failure).join())
        .isInstanceOf(StackOverflowError.class);
  }

  @Test
  void anAnswerEndsTheStageBeforeTheCallReturns() {
    Failing store = new Failing();

    assertThat(store.release(LEASE)).isCompletedWithValue(true);
  }

  /** Throws {@code failure} from every call while it is set. */
  private static final class Failing extends BlockingIdempotencyStore {
    Throwable failure;

    @Override
    protected ClaimResult claimNow(ClaimRequest request) {
      return fail();
    }

    @Override
    protected boolean completeNow(Lease lease, Outcome outcome, Duration retention) {
      return fail();
    }

    @Override
    protected boolean releaseNow(Lease lease) {
      return failure == null || this.<Boolean>fail();
    }

    private <V> V fail() {
      if (failure instanceof RuntimeException e) {
        throw e;
      }
      throw (Error) failure;
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
      return Optional.empty();
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
      return Optional.empty();
    }

    @Override
    public boolean evict(IdempotencyKey key, RecordState state, long fence) {
      return false;
    }

    @Override
    public boolean issue(IdempotencyKey key, Duration ttl, int scopeCap) {
      return false;
    }

    @Override
    public int purgeExpired(int limit) {
      return 0;
    }
  }
}
