package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A claim whose answer comes back after more than half its lease (a stalled store, a client whose
 * timeout is longer than the lease) may have been taken over while it was on its way: it is given
 * back and the call fails as on a store failure, on the blocking and the asynchronous path, and the
 * work never runs on it.
 */
class LateClaimTest {

  private static final Duration LEASE = Duration.ofMillis(600);

  private final ExecutorService storeCalls = Executors.newFixedThreadPool(2);
  private final LateAnswers store = new LateAnswers(new InMemoryIdempotencyStore());
  private final Idempotency engine = Idempotency.builder(store).build();
  private final IdempotencyConfig config = IdempotencyConfig.custom().lease(LEASE).build();
  private final IdempotencyKey key = IdempotencyKey.of("payments", UUID.randomUUID().toString());
  private final AtomicInteger charges = new AtomicInteger();

  @AfterEach
  void stop() {
    engine.close();
    storeCalls.shutdownNow();
  }

  @Test
  void aClaimAnsweredAfterHalfItsLeaseIsGivenBackAndNotRun() {
    store.delay = LEASE.dividedBy(2).plusMillis(100);

    assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).config(config).run(this::charge))
        .isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining("more than half its lease");
    assertThat(charges).hasValue(0);
    assertThat(store.find(key)).isEmpty();

    store.delay = Duration.ZERO;
    assertThat(engine.call(key, Fingerprint.NONE).config(config).run(this::charge))
        .isEqualTo("charged 1");
  }

  @Test
  void anAsynchronousClaimAnsweredAfterHalfItsLeaseIsGivenBackAndNotRun() throws Exception {
    store.delay = LEASE.dividedBy(2).plusMillis(100);

    CompletableFuture<Executed<String>> late =
        engine
            .call(key, Fingerprint.NONE)
            .config(config)
            .runAsync(ctx -> CompletableFuture.completedFuture(charge(ctx)), storeCalls);

    assertThatThrownBy(() -> late.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasRootCauseInstanceOf(IdempotencyStoreException.class);
    assertThat(charges).hasValue(0);
    assertThat(store.find(key)).isEmpty();
  }

  @Test
  void aLateClaimIsRefusedUnderFailOpenTooRatherThanRunUnguarded() {
    store.delay = LEASE.dividedBy(2).plusMillis(100);
    IdempotencyConfig failOpen = IdempotencyConfig.from(config).failOpen(true).build();

    assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).config(failOpen).run(this::charge))
        .isInstanceOf(IdempotencyStoreException.class);
    assertThat(charges).hasValue(0);
  }

  @Test
  void aClaimAnsweredWithinHalfItsLeaseRuns() {
    store.delay = LEASE.dividedBy(6);

    assertThat(engine.call(key, Fingerprint.NONE).config(config).run(this::charge))
        .isEqualTo("charged 1");
  }

  private String charge(ExecutionContext ctx) {
    return "charged " + charges.incrementAndGet();
  }

  /** The memory store, whose claims land at once and whose answers come back after a delay. */
  private static final class LateAnswers extends ForwardingIdempotencyStore {
    volatile Duration delay = Duration.ZERO;

    LateAnswers(IdempotencyStore delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
      ClaimResult result = super.claim(request).join();
      return CompletableFuture.supplyAsync(
          () -> result, CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS));
    }
  }
}
