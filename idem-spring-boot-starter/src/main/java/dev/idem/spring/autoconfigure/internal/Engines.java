package dev.idem.spring.autoconfigure.internal;

import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyListener;
import dev.idem.core.IdempotencyStore;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdempotencyStoreDecorator;
import java.util.List;

/** Builds an engine the way the starter builds its own: decorated store, policies, listeners. */
public final class Engines {

  private Engines() {}

  /**
   * An engine over {@code store}, wrapped by {@code decorators} in order, with the policies'
   * defaults and every listener.
   */
  public static Idempotency build(
      IdempotencyStore store,
      IdemPolicies policies,
      List<IdempotencyListener> listeners,
      List<IdempotencyStoreDecorator> decorators) {
    IdempotencyStore used = store;
    for (IdempotencyStoreDecorator decorator : decorators) {
      used = decorator.decorate(used);
    }
    return Idempotency.builder(used)
        .defaults(policies.defaults())
        .listener(IdempotencyListener.all(listeners))
        .build();
  }
}
