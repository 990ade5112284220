package dev.idem.core.internal;

import dev.idem.core.ExecutionContext;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.Lease;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/** The lease of one running execution, kept current by the watchdog and read by the work. */
public final class LiveLease implements ExecutionContext {

  private final CompletableFuture<@Nullable Void> lost = new CompletableFuture<>();
  private volatile Lease lease;
  private volatile boolean discarded;

  public LiveLease(Lease lease) {
    this.lease = lease;
  }

  /** The latest renewed lease. */
  public Lease lease() {
    return lease;
  }

  // A lost lease stays lost: a renewal that answers after the loss changes nothing.
  void renewed(Lease renewed) {
    if (!isLeaseLost()) {
      this.lease = renewed;
    }
  }

  void markLost() {
    lost.complete(null);
  }

  @Override
  public IdempotencyKey key() {
    return lease.key();
  }

  @Override
  public long fence() {
    return lease.fence();
  }

  @Override
  public boolean isLeaseLost() {
    return lost.isDone();
  }

  @Override
  public CompletionStage<@Nullable Void> leaseLost() {
    return lost.minimalCompletionStage();
  }

  @Override
  public void discardOutcome() {
    discarded = true;
  }

  /** True once the work said its outcome is not to be kept ({@link #discardOutcome()}). */
  public boolean outcomeDiscarded() {
    return discarded;
  }
}
