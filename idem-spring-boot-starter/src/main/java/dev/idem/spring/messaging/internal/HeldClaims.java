package dev.idem.spring.messaging.internal;

import dev.idem.core.Deferral;
import dev.idem.core.PendingOutcome;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Settles the claims a batch listener's advice held while the method ran: the ones whose messages
 * are done are completed, after the transaction when the store does not write in it and otherwise
 * together (one round trip for the batch on Redis); the others are released, so that their messages
 * run when they come again. Kafka's advice and RabbitMQ's share it.
 */
public final class HeldClaims {

  private HeldClaims() {}

  /**
   * Completes {@code done} by {@code deferral} (held by it, or sent together now when it is {@link
   * Deferral#NONE}) and releases {@code undone}, and one the deferral refuses. Every claim is
   * settled before the first failure, if any, is thrown: one left unsettled would be renewed as
   * long as the process lives.
   */
  public static void settle(
      List<PendingOutcome> done, List<PendingOutcome> undone, Deferral deferral) {
    @Nullable RuntimeException failed = null;
    for (PendingOutcome outcome : undone) {
      try {
        outcome.release();
      } catch (RuntimeException e) {
        failed = first(failed, e);
      }
    }
    List<PendingOutcome> now = new ArrayList<>();
    for (PendingOutcome outcome : done) {
      if (!deferral.holds()) {
        now.add(outcome);
        continue;
      }
      try {
        deferral.hold(outcome);
      } catch (RuntimeException e) {
        // as the engine does when a deferral refuses: the key is freed and the failure reaches
        // the caller, whose error handler sends the message again
        failed = first(failed, e);
        try {
          outcome.release();
        } catch (RuntimeException again) {
          failed.addSuppressed(again);
        }
      }
    }
    try {
      PendingOutcome.completeAll(now);
    } catch (RuntimeException e) {
      failed = first(failed, e);
    }
    if (failed != null) {
      throw failed;
    }
  }

  private static RuntimeException first(@Nullable RuntimeException failed, RuntimeException e) {
    if (failed == null) {
      return e;
    }
    failed.addSuppressed(e);
    return failed;
  }
}
