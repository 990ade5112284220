package dev.idem.spring.internal;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.LocalReplayCache;
import dev.idem.core.store.RecordState;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.IdempotencyStoreDecorator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.util.ClassUtils;

/**
 * The local replay cache of the operations whose policy turns it on ({@code
 * idem.policies.<operation>.replay-cache}, {@code idem.defaults.replay-cache}): the outermost
 * decorator of the engine's store, so that a replay from memory meets no timer and no round trip;
 * and the eviction the idempotency endpoint makes through the undecorated store, which must forget
 * the record here and wait out the window too.
 */
public final class ReplayCaches implements IdempotencyStoreDecorator {

  private final IdemPolicies policies;
  private final Duration window;
  private final long maxBytes;
  private final List<LocalReplayCache> caches = new CopyOnWriteArrayList<>();

  /**
   * @throws IllegalStateException without Caffeine on the class path, or for a window that is not
   *     positive or longer than a minute
   */
  public ReplayCaches(IdemPolicies policies, IdemProperties.ReplayCache properties) {
    if (!ClassUtils.isPresent(
        "com.github.benmanes.caffeine.cache.Caffeine", ReplayCaches.class.getClassLoader())) {
      throw new IllegalStateException(
          "a policy turns the replay cache on (replay-cache=true), which needs Caffeine: add"
              + " com.github.ben-manes.caffeine:caffeine to the application");
    }
    Duration window = properties.getWindow();
    if (window.isNegative() || window.isZero() || window.compareTo(Duration.ofMinutes(1)) > 0) {
      throw new IllegalStateException(
          "idem.replay-cache.window must be positive and at most 1m, was " + window);
    }
    this.policies = policies;
    this.window = window;
    this.maxBytes = properties.getMaxBytes().toBytes();
  }

  @Override
  public ForwardingIdempotencyStore decorate(IdempotencyStore store) {
    LocalReplayCache cache =
        LocalReplayCache.in(store)
            .window(window)
            .maxBytes(maxBytes)
            .only(key -> policies.replayCached(operationOf(key)))
            .build();
    caches.add(cache);
    return cache;
  }

  /** {@code store}, evicting through every cache: what the idempotency endpoint writes with. */
  public IdempotencyStore evictingThrough(IdempotencyStore store) {
    return new ForwardingIdempotencyStore(store) {
      @Override
      public boolean evict(IdempotencyKey key, RecordState state, long fence) {
        boolean evicted = super.evict(key, state, fence);
        if (evicted) {
          forget(key, state);
        }
        return evicted;
      }
    };
  }

  // every cache drops the key at once, then one wait for all (an application may build several
  // engines), and only when some cache holds the key's operation at all
  private void forget(IdempotencyKey key, RecordState state) {
    caches.forEach(cache -> cache.drop(key));
    if (state != RecordState.IN_PROGRESS && caches.stream().anyMatch(c -> c.covers(key))) {
      LocalReplayCache.waitOut(window);
      caches.forEach(cache -> cache.drop(key));
    }
  }

  // a scope is "<operation>" or "<operation>|<caller>"
  private static String operationOf(IdempotencyKey key) {
    String scope = key.scope();
    int bar = scope.indexOf('|');
    return bar < 0 ? scope : scope.substring(0, bar);
  }
}
