package dev.idem.core.internal;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Several listeners as one; what one of them throws is logged and does not reach the others. */
public final class AllListeners implements IdempotencyListener {

  private static final Logger log = LoggerFactory.getLogger(AllListeners.class);

  private final List<IdempotencyListener> listeners;

  public AllListeners(List<IdempotencyListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  @Override
  public Runnable onStart(IdempotencyKey key) {
    List<Runnable> ends = new ArrayList<>(listeners.size());
    for (IdempotencyListener listener : listeners) {
      try {
        ends.add(listener.onStart(key));
      } catch (RuntimeException e) {
        log.warn("idempotency listener {} failed at the start of {}", listener, key, e);
      }
    }
    return () -> {
      for (int i = ends.size() - 1; i >= 0; i--) {
        try {
          ends.get(i).run();
        } catch (RuntimeException e) {
          log.warn("idempotency listener failed at the end of {}", key, e);
        }
      }
    };
  }

  @Override
  public void onOutcome(IdempotencyKey key, ExecutionOutcome outcome) {
    for (IdempotencyListener listener : listeners) {
      try {
        listener.onOutcome(key, outcome);
      } catch (RuntimeException e) {
        log.warn("idempotency listener {} failed on {} of {}", listener, outcome, key, e);
      }
    }
  }
}
