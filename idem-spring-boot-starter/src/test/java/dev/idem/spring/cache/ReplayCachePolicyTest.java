package dev.idem.spring.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.RecordState;
import dev.idem.spring.IdempotencyStoreDecorator;
import dev.idem.spring.Idempotent;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import dev.idem.spring.internal.ReplayCaches;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter's local replay cache: on for the operations whose policy says so, outermost (a replay
 * from memory reaches no other decorator), off by default, and evicted through by the idempotency
 * endpoint's store, after which the work runs again.
 */
class ReplayCachePolicyTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
          .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
          .withBean(ClaimCounter.class)
          .withBean(Payments.class);

  @Test
  void repeatsOfACachedOperationReachNoStore() {
    runner
        .withPropertyValues(
            "idem.policies.cached-pay.replay-cache=true", "idem.replay-cache.window=5s")
        .run(
            context -> {
              Payments payments = context.getBean(Payments.class);
              ClaimCounter claims = context.getBean(ClaimCounter.class);

              String first = payments.cached("p-1");
              payments.cached("p-1"); // reads the completed record, and keeps it
              int reached = claims.count();
              for (int i = 0; i < 5; i++) {
                assertThat(payments.cached("p-1")).isEqualTo(first);
              }
              assertThat(claims.count()).isEqualTo(reached);
              assertThat(payments.runs()).isEqualTo(1);

              payments.plain("p-2");
              payments.plain("p-2");
              int plain = claims.count();
              payments.plain("p-2");
              assertThat(claims.count()).isEqualTo(plain + 1);
            });
  }

  @Test
  void anEvictionThroughTheEndpointsStoreRunsTheWorkAgain() {
    runner
        .withPropertyValues("idem.defaults.replay-cache=true", "idem.replay-cache.window=200ms")
        .run(
            context -> {
              Payments payments = context.getBean(Payments.class);
              IdempotencyStore store = context.getBean(IdempotencyStore.class);
              payments.cached("p-3");
              payments.cached("p-3");
              IdempotencyKey key = IdempotencyKey.of("cached-pay", "p-3");
              long fence = store.find(key).orElseThrow().fence();

              boolean evicted =
                  context
                      .getBean(ReplayCaches.class)
                      .evictingThrough(store)
                      .evict(key, RecordState.COMPLETED, fence);

              assertThat(evicted).isTrue();
              payments.cached("p-3");
              assertThat(payments.runs()).isEqualTo(2);
            });
  }

  @Test
  void offByDefault() {
    runner.run(context -> assertThat(context).doesNotHaveBean(ReplayCaches.class));
  }

  @Test
  void aWindowOverAMinuteStopsTheStart() {
    runner
        .withPropertyValues("idem.defaults.replay-cache=true", "idem.replay-cache.window=2m")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("idem.replay-cache.window"));
  }

  /** Counts the claims that reach the store, as the innermost decorator. */
  static class ClaimCounter implements IdempotencyStoreDecorator {
    private final AtomicInteger claims = new AtomicInteger();

    int count() {
      return claims.get();
    }

    @Override
    public ForwardingIdempotencyStore decorate(IdempotencyStore store) {
      return new ForwardingIdempotencyStore(store) {
        @Override
        public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
          claims.incrementAndGet();
          return super.claim(request);
        }
      };
    }
  }

  /** A bean with a cached and an uncached operation. Methods, not fields: it is proxied. */
  static class Payments {
    private final AtomicInteger runs = new AtomicInteger();

    int runs() {
      return runs.get();
    }

    @Idempotent(operation = "cached-pay", key = "#id")
    public String cached(String id) {
      return "paid " + id + " #" + runs.incrementAndGet();
    }

    @Idempotent(operation = "plain-pay", key = "#id")
    public String plain(String id) {
      return "paid " + id;
    }
  }
}
