package dev.idem.core.internal;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listeners per key, each run at most once, at the key's next {@link #fire}. A listener whose
 * {@link #add} has returned is never lost: the next fire of its key runs it unless it was removed.
 * Thread-safe.
 *
 * @param <K> the key
 */
public final class OneShotListeners<K> {

  private static final Logger log = LoggerFactory.getLogger(OneShotListeners.class);

  // A set changes only inside a compute on its key, and fire unmaps it before running it, so an
  // add can never land in a set that was already fired or dropped.
  private final ConcurrentMap<K, Set<Runnable>> byKey = new ConcurrentHashMap<>();

  /** Adds {@code listener} for the next fire of {@code key}; returns the action that removes it. */
  public Runnable add(K key, Runnable listener) {
    Runnable entry = new Entry(listener);
    byKey.compute(
        key,
        (k, set) -> {
          Set<Runnable> next = set != null ? set : new HashSet<>();
          next.add(entry);
          return next;
        });
    return () ->
        byKey.computeIfPresent(
            key,
            (k, set) -> {
              set.remove(entry);
              return set.isEmpty() ? null : set;
            });
  }

  /** Whether any listener waits for {@code key}. */
  public boolean has(K key) {
    return byKey.containsKey(key);
  }

  /** Runs and drops every listener of {@code key}, on this thread; one that throws is logged. */
  public void fire(K key) {
    Set<Runnable> fired = byKey.remove(key);
    if (fired == null) {
      return;
    }
    for (Runnable r : fired) {
      try {
        r.run();
      } catch (RuntimeException e) {
        log.warn("change listener failed", e);
      }
    }
  }

  /** Gives each added listener its own identity, so that removing one leaves another copy. */
  private static final class Entry implements Runnable {
    private final Runnable listener;

    Entry(Runnable listener) {
      this.listener = listener;
    }

    @Override
    public void run() {
      listener.run();
    }
  }
}
