package dev.idem.core.memory;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.RecordChangeNotifier.Subscription;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One-shot listeners per key, fired and dropped at the record's next change. */
final class ChangeListeners {

  private static final Logger log = LoggerFactory.getLogger(ChangeListeners.class);

  private final ConcurrentMap<IdempotencyKey, Set<Runnable>> byId = new ConcurrentHashMap<>();

  Subscription add(IdempotencyKey id, Runnable listener) {
    Runnable once = new OnceRunnable(listener);
    byId.computeIfAbsent(id, k -> ConcurrentHashMap.newKeySet()).add(once);
    return () ->
        byId.computeIfPresent(
            id,
            (k, set) -> {
              set.remove(once);
              return set.isEmpty() ? null : set;
            });
  }

  void fire(IdempotencyKey id) {
    Set<Runnable> fired = byId.remove(id);
    if (fired == null) {
      return;
    }
    for (Runnable r : fired) {
      try {
        r.run();
      } catch (RuntimeException e) {
        log.warn("record change listener failed", e);
      }
    }
  }

  private static final class OnceRunnable implements Runnable {
    private final Runnable delegate;
    private boolean ran;

    OnceRunnable(Runnable delegate) {
      this.delegate = delegate;
    }

    @Override
    public synchronized void run() {
      if (!ran) {
        ran = true;
        delegate.run();
      }
    }
  }
}
