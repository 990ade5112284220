package dev.idem.core.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The base of a store whose calls block the calling thread (a database driver, memory): it answers
 * {@link #claim}, {@link #complete} and {@link #release} on the calling thread, as stages already
 * ended, from the three blocking calls a subclass writes. Whatever they throw ends the stage as a
 * failure, an {@link Error} too: the stage is never thrown past. Since the call runs where it is
 * made, a store that writes in the caller's transaction ({@link #joinsCurrentTransaction()}) writes
 * in it here.
 */
public abstract class BlockingIdempotencyStore implements IdempotencyStore {

  /** {@link IdempotencyStore#claim}, answered on the calling thread. */
  protected abstract ClaimResult claimNow(ClaimRequest request);

  /** {@link IdempotencyStore#complete}, answered on the calling thread. */
  protected abstract boolean completeNow(Lease lease, Outcome outcome, Duration retention);

  /** {@link IdempotencyStore#release}, answered on the calling thread. */
  protected abstract boolean releaseNow(Lease lease);

  @Override
  public final CompletableFuture<ClaimResult> claim(ClaimRequest request) {
    return ended(() -> claimNow(request));
  }

  @Override
  public final CompletableFuture<Boolean> complete(
      Lease lease, Outcome outcome, Duration retention) {
    return ended(() -> completeNow(lease, outcome, retention));
  }

  @Override
  public final CompletableFuture<Boolean> release(Lease lease) {
    return ended(() -> releaseNow(lease));
  }

  private static <V> CompletableFuture<V> ended(Supplier<V> call) {
    try {
      return CompletableFuture.completedFuture(call.get());
    } catch (Throwable e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
