package dev.idem.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/** The context of work run without a lease (fail open): fence 0, never lost. */
record UnguardedContext(IdempotencyKey key) implements ExecutionContext {

  @Override
  public long fence() {
    return 0;
  }

  @Override
  public boolean isLeaseLost() {
    return false;
  }

  @Override
  public CompletionStage<@Nullable Void> leaseLost() {
    return new CompletableFuture<@Nullable Void>().minimalCompletionStage();
  }

  // nothing is kept of work that runs unguarded
  @Override
  public void discardOutcome() {}
}
