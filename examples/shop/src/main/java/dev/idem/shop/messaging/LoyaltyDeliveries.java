package dev.idem.shop.messaging;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * Hears how each delivery of a payment's event to the loyalty points ended, whichever path took it
 * (the event listener of the embedded default, the listener advice over RabbitMQ): {@code EXECUTED}
 * when the points were written (or the attempt failed), {@code REPLAYED} for a duplicate, by the
 * event's id. For tests and demonstrations.
 */
public class LoyaltyDeliveries implements IdempotencyListener {

  private static final Set<String> SCOPES =
      Set.of(LoyaltyPoints.LISTENER, "consumer:" + LoyaltyPoints.GROUP);

  private final List<BiConsumer<String, ExecutionOutcome>> observers = new CopyOnWriteArrayList<>();

  @Override
  public void onOutcome(IdempotencyKey key, ExecutionOutcome outcome) {
    if (SCOPES.contains(key.scope())) {
      // the event listener's key names the event's class before its id
      String id = key.value().substring(key.value().indexOf('/') + 1);
      observers.forEach(o -> o.accept(id, outcome));
    }
  }

  /** Calls {@code observer} with the message id and the outcome of every delivery from now on. */
  public void observe(BiConsumer<String, ExecutionOutcome> observer) {
    observers.add(observer);
  }
}
