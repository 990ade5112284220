package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The engine's own threads (the lease watchdog's) come from the factory its builder was given. */
class EngineThreadsTest {

  @Test
  void leasesAreRenewedOnThreadsTheGivenFactoryMade() throws Exception {
    Set<Thread> made = ConcurrentHashMap.newKeySet();
    ThreadFactory factory =
        task -> {
          Thread thread = new Thread(task);
          thread.setDaemon(true);
          made.add(thread);
          return thread;
        };
    CompletableFuture<Thread> renewing = new CompletableFuture<>();
    IdempotencyStore store =
        new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
          @Override
          public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
            renewing.complete(Thread.currentThread());
            return super.renew(lease, leaseDuration);
          }
        };
    try (Idempotency engine = Idempotency.builder(store).threads(factory).build()) {
      String answer =
          engine
              .call(IdempotencyKey.of("threads", "k1"), Fingerprint.NONE)
              .config(IdempotencyConfig.custom().lease(Duration.ofMillis(300)).build())
              .run(
                  ctx -> {
                    renewing.get(10, TimeUnit.SECONDS); // a renewal happened while the work ran
                    return "done";
                  });

      assertThat(answer).isEqualTo("done");
      assertThat(made).contains(renewing.get());
      assertThat(made).extracting(Thread::getName).contains("idem-lease-watchdog");
    }
  }
}
