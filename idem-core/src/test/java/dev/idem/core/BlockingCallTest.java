package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The blocking call runs the engine's stages on its own thread: the work sees the caller's thread,
 * and a caller interrupted while it waits for a duplicate is refused as in progress at once, its
 * interrupt flag kept.
 */
class BlockingCallTest {

  private final ExecutorService threads = Executors.newFixedThreadPool(2);
  private final Idempotency engine = Idempotency.builder(new InMemoryIdempotencyStore()).build();
  private final IdempotencyKey key = IdempotencyKey.of("payments", UUID.randomUUID().toString());
  private final IdempotencyConfig waiting =
      IdempotencyConfig.custom().waitInProgress(Duration.ofSeconds(60)).build();

  @AfterEach
  void stop() {
    engine.close();
    threads.shutdownNow();
  }

  @Test
  void theWorkOfABlockingCallRunsOnTheCallersThread() {
    AtomicReference<Thread> ranOn = new AtomicReference<>();

    engine
        .call(key, Fingerprint.NONE)
        .config(waiting)
        .run(
            ctx -> {
              ranOn.set(Thread.currentThread());
              return "done";
            });

    assertThat(ranOn.get()).isSameAs(Thread.currentThread());
  }

  @Test
  void aDuplicateInterruptedWhileItWaitsIsRefusedAsInProgressAndStaysInterrupted()
      throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<String> first =
        CompletableFuture.supplyAsync(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .config(waiting)
                    .run(
                        ctx -> {
                          running.countDown();
                          await(finish);
                          return "first";
                        }),
            threads);
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    AtomicReference<Throwable> refused = new AtomicReference<>();
    AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
    Thread duplicate =
        new Thread(
            () -> {
              try {
                engine.call(key, Fingerprint.NONE).config(waiting).run(ctx -> "second");
              } catch (RuntimeException e) {
                refused.set(e);
              }
              stillInterrupted.set(Thread.currentThread().isInterrupted());
            });
    duplicate.start();
    while (duplicate.getState() != Thread.State.WAITING
        && duplicate.getState() != Thread.State.TIMED_WAITING) {
      Thread.onSpinWait();
    }

    duplicate.interrupt();
    duplicate.join(TimeUnit.SECONDS.toMillis(10));

    assertThat(duplicate.isAlive()).as("the duplicate stopped waiting").isFalse();
    assertThat(refused.get()).isInstanceOf(RequestInProgressException.class);
    assertThat(stillInterrupted.get()).isTrue();
    finish.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
  }

  @Test
  void theWorksOwnCompletionExceptionReachesTheCallerAndTheClassifierAsItWasThrown() {
    CompletionException thrown = new CompletionException(new java.io.IOException("gateway down"));
    List<Throwable> classified = new CopyOnWriteArrayList<>();
    IdempotencyConfig config =
        IdempotencyConfig.custom()
            .terminalWhen(
                failure -> {
                  classified.add(failure);
                  return false;
                })
            .build();

    assertThatThrownBy(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .config(config)
                    .run(
                        ctx -> {
                          throw thrown;
                        }))
        .isSameAs(thrown);
    assertThat(classified).containsExactly(thrown);
  }

  @Test
  void aCallerInterruptedWhileItsClaimIsOnTheWireRunsTheWorkInterrupted() throws Exception {
    CompletableFuture<Void> answerClaim = new CompletableFuture<>();
    IdempotencyStore slowClaims =
        new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
          @Override
          public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
            ClaimResult result = super.claim(request).join();
            return answerClaim.thenApplyAsync(ignored -> result, threads);
          }
        };
    AtomicReference<Boolean> workSawInterrupt = new AtomicReference<>();
    try (Idempotency onSlowClaims = Idempotency.builder(slowClaims).build()) {
      Thread caller =
          new Thread(
              () ->
                  onSlowClaims
                      .call(key, Fingerprint.NONE)
                      .run(
                          ctx -> {
                            workSawInterrupt.set(Thread.currentThread().isInterrupted());
                            return "done";
                          }));
      caller.start();
      while (caller.getState() != Thread.State.WAITING) {
        Thread.onSpinWait();
      }
      caller.interrupt();
      answerClaim.complete(null);
      caller.join(TimeUnit.SECONDS.toMillis(10));

      assertThat(workSawInterrupt.get()).isTrue();
      assertThat(slowClaims.find(key)).hasValueSatisfying(r -> assertThat(r.outcome()).isNotNull());
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
