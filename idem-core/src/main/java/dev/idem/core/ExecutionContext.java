package dev.idem.core;

import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/** What the engine tells the work while it runs under a lease. */
public interface ExecutionContext {

  /** The key being executed. */
  IdempotencyKey key();

  /**
   * The fence of this execution's lease. It grows with every claim of the key, so the work can
   * guard its own writes with it ({@code UPDATE ... WHERE last_fence < :fence}) and a stale owner's
   * late write is refused.
   */
  long fence();

  /** True once the watchdog failed to renew the lease: another owner may now run the same key. */
  boolean isLeaseLost();

  /** Completes when the lease is lost; never completes if the work finishes with its lease. */
  CompletionStage<@Nullable Void> leaseLost();
}
