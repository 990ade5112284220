package dev.idem.spring.messaging.internal;

import dev.idem.core.Deferral;
import dev.idem.core.PendingOutcome;
import java.util.ArrayList;
import java.util.List;

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
   * Deferral#NONE}) and releases {@code undone}.
   */
  public static void settle(
      List<PendingOutcome> done, List<PendingOutcome> undone, Deferral deferral) {
    for (PendingOutcome outcome : undone) {
      outcome.release();
    }
    List<PendingOutcome> now = new ArrayList<>();
    for (PendingOutcome outcome : done) {
      if (deferral.holds()) {
        deferral.hold(outcome);
      } else {
        now.add(outcome);
      }
    }
    PendingOutcome.completeAll(now);
  }
}
