package dev.idem.core.hot.internal;

import dev.idem.core.hot.Deduction;
import dev.idem.core.hot.DeductionResult;
import java.util.concurrent.locks.Condition;
import org.jspecify.annotations.Nullable;

/** One caller's deduction while it waits; guarded by its {@link Lane}'s lock. */
final class Pending {

  enum State {
    QUEUED,
    /** Queued, and its caller is to apply the next batch. */
    LEADING,
    IN_FLIGHT,
    DONE
  }

  final Deduction deduction;
  final Condition changed;
  State state;
  @Nullable DeductionResult result;
  @Nullable Throwable failure;

  Pending(Deduction deduction, Condition changed, State state) {
    this.deduction = deduction;
    this.changed = changed;
    this.state = state;
  }

  void finish(@Nullable DeductionResult result, @Nullable Throwable failure) {
    this.result = result;
    this.failure = failure;
    this.state = State.DONE;
    changed.signal();
  }

  void promote() {
    state = State.LEADING;
    changed.signal();
  }
}
