package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An asynchronous call on a store that settles without blocking: its stages end on the store's own
 * "io" thread, as Lettuce's do. The settlement rules hold as on the blocking path (retries, the
 * report, the release of a failure), no store thread waits for the store, and nothing after the
 * store's answer (listeners, the caller's continuation) runs on the io thread.
 */
class LaterSettlementTest {

  private final ExecutorService io = Executors.newSingleThreadExecutor(r -> new Thread(r, "io"));
  private final ExecutorService storePool =
      Executors.newFixedThreadPool(2, r -> new Thread(r, "store"));
  // Store calls wait until the test watches the call's answer: an answer that ended before the
  // watcher was attached would report the test's own thread, not the one it ended on.
  private final CountDownLatch watching = new CountDownLatch(1);
  private final Executor storeCalls =
      task ->
          storePool.execute(
              () -> {
                try {
                  watching.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                task.run();
              });
  private final IoStore store = new IoStore();
  private final List<String> heard = new CopyOnWriteArrayList<>();
  private final Idempotency engine =
      Idempotency.builder(store)
          .listener(
              (key, outcome) -> heard.add(outcome + " on " + Thread.currentThread().getName()))
          .build();
  private final IdempotencyKey key = IdempotencyKey.of("payments", UUID.randomUUID().toString());

  @AfterEach
  void stop() {
    engine.close();
    io.shutdownNow();
    storePool.shutdownNow();
  }

  @Test
  void aValueIsStoredThroughTheStoresStageAndTheCallEndsOffItsThread() throws Exception {
    CompletableFuture<String> where = call(ctx -> CompletableFuture.completedFuture("paid"));

    assertThat(where.get(10, TimeUnit.SECONDS)).isEqualTo("paid on store");
    assertThat(store.completes).hasValue(1);
    assertThat(heard).containsExactly("EXECUTED on store");
    assertThat(replay()).isEqualTo(new Executed<>("paid", true));
  }

  @Test
  void aCompletionThatFailsIsTriedAgainAndTheCallGetsItsValue() throws Exception {
    store.failingCompletes.set(1);

    assertThat(call(ctx -> CompletableFuture.completedFuture("paid")).get(10, TimeUnit.SECONDS))
        .isEqualTo("paid on store");
    assertThat(store.completes).hasValue(2);
    assertThat(replay()).isEqualTo(new Executed<>("paid", true));
  }

  @Test
  void aCompletionThatKeepsFailingIsReportedAndTheCallStillGetsItsValue() throws Exception {
    store.failingCompletes.set(Integer.MAX_VALUE);

    assertThat(call(ctx -> CompletableFuture.completedFuture("paid")).get(10, TimeUnit.SECONDS))
        .isEqualTo("paid on store");
    assertThat(store.completes).hasValue(IdempotencyConfig.DEFAULT_COMPLETION_ATTEMPTS);
    assertThat(heard).containsExactly("STORE_ERROR on store", "EXECUTED on store");
  }

  @Test
  void aRetryableFailureFreesTheKeyThroughTheStoresStage() throws Exception {
    CompletableFuture<String> where =
        call(ctx -> CompletableFuture.failedFuture(new IllegalStateException("declined")));

    assertThatThrownBy(() -> where.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasRootCauseMessage("declined on store");
    assertThat(store.releases).hasValue(1);
    assertThat(store.find(key)).isEmpty();
    assertThat(heard).containsExactly("EXECUTED on store");
  }

  @Test
  void aValueTheCodecCannotEncodeFreesTheKeyAndFailsTheCallOffTheStoresThread() throws Exception {
    ResultCodec<String> failing =
        new ResultCodec<>() {
          @Override
          public byte[] encode(String value) {
            throw new IllegalArgumentException("not encodable");
          }

          @Override
          public String decode(byte[] bytes) {
            return new String(bytes);
          }
        };
    CompletableFuture<Executed<String>> answer =
        engine
            .call(key, Fingerprint.NONE)
            .codec(failing)
            .config(IdempotencyConfig.ofDefaults())
            .runAsync(ctx -> CompletableFuture.completedFuture("paid"), storeCalls);
    CompletableFuture<String> where = whereItEnds(answer);

    assertThatThrownBy(() -> where.get(10, TimeUnit.SECONDS))
        .hasRootCauseMessage("not encodable on store");
    assertThat(store.releases).hasValue(1);
    assertThat(store.find(key)).isEmpty();
  }

  // The call's value (or failure message) and the thread its answer ended on.
  private CompletableFuture<String> call(AsyncWork<String> work) {
    return whereItEnds(
        engine
            .call(key, Fingerprint.NONE)
            .config(IdempotencyConfig.ofDefaults())
            .runAsync(work, storeCalls));
  }

  private CompletableFuture<String> whereItEnds(CompletableFuture<Executed<String>> answer) {
    CompletableFuture<String> where = new CompletableFuture<>();
    answer.whenComplete(
        (executed, failure) -> {
          String thread = Thread.currentThread().getName();
          if (failure == null) {
            where.complete(executed.value() + " on " + thread);
          } else {
            Throwable cause = failure.getCause() == null ? failure : failure.getCause();
            where.completeExceptionally(
                new IllegalStateException(cause.getMessage() + " on " + thread));
          }
        });
    watching.countDown();
    return where;
  }

  private Executed<String> replay() throws Exception {
    return engine
        .call(key, Fingerprint.NONE)
        .config(IdempotencyConfig.ofDefaults())
        .runAsync(ctx -> CompletableFuture.completedFuture("again"), storeCalls)
        .get(10, TimeUnit.SECONDS);
  }

  /** The in-memory store, settling on its own io thread as a non-blocking client would. */
  private final class IoStore extends MemoryBackedStore {
    private final AtomicInteger failingCompletes = new AtomicInteger();
    private final AtomicInteger completes = new AtomicInteger();
    private final AtomicInteger releases = new AtomicInteger();

    @Override
    public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
      return CompletableFuture.supplyAsync(
          () -> {
            completes.incrementAndGet();
            if (failingCompletes.getAndUpdate(n -> n == Integer.MAX_VALUE ? n : n - 1) > 0) {
              throw new IdempotencyStoreException("injected: complete failed");
            }
            return memory.complete(lease, outcome, retention).join();
          },
          io);
    }

    @Override
    public CompletableFuture<Boolean> release(Lease lease) {
      return CompletableFuture.supplyAsync(
          () -> {
            releases.incrementAndGet();
            return memory.release(lease).join();
          },
          io);
    }
  }
}
