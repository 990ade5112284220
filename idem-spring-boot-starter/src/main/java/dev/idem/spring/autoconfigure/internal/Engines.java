package dev.idem.spring.autoconfigure.internal;

import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdemThreads;
import dev.idem.spring.IdempotencyStoreDecorator;
import dev.idem.spring.internal.ReplayCaches;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;

/** Builds an engine the way the starter builds its own: decorated store, policies, listeners. */
public final class Engines {

  private Engines() {}

  /**
   * An engine over {@code store}, wrapped by the application's {@link IdempotencyStoreDecorator}s
   * in order and then by the local replay cache when a policy turns it on, with the policies'
   * defaults, every {@link IdempotencyListener} and {@link IdemThreads}.
   */
  public static Idempotency build(
      IdempotencyStore store, IdemPolicies policies, ListableBeanFactory beans) {
    IdempotencyStore used = store;
    ReplayCaches replayCaches = null;
    for (IdempotencyStoreDecorator decorator :
        beans.getBeanProvider(IdempotencyStoreDecorator.class).orderedStream().toList()) {
      if (decorator instanceof ReplayCaches caches) {
        replayCaches = caches;
      } else {
        used = decorator.decorate(used);
      }
    }
    // outermost: a replay from memory meets no timer and no round trip
    if (replayCaches != null) {
      used = replayCaches.decorate(used);
    }
    List<IdempotencyListener> listeners =
        beans.getBeanProvider(IdempotencyListener.class).orderedStream().toList();
    return Idempotency.builder(used)
        .defaults(policies.defaults())
        .listener(IdempotencyListener.all(listeners))
        .threads(beans.getBeanProvider(IdemThreads.class).getIfAvailable(IdemThreads::platform))
        .build();
  }
}
