package dev.idem.testsupport.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.LeaseLostException;
import dev.idem.core.store.IdempotencyStore;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One check that every backend's fault-proxy test runs: work with a 1 s lease is running when the
 * proxy in front of its store goes silent (blackhole); the work must be told its lease is lost
 * within {@link #LOST_WITHIN}, well before a renewal hanging in the partition gives up (the store's
 * call timeout must be longer), and once healed the engine works again.
 */
public final class SilentPartitionCheck {

  /** The lease of the watched work. */
  public static final Duration LEASE = Duration.ofSeconds(1);

  /** A lease plus plenty for a loaded machine. */
  public static final Duration LOST_WITHIN = Duration.ofSeconds(8);

  private static final Duration WAIT = Duration.ofSeconds(30);

  private SilentPartitionCheck() {}

  /**
   * Runs the check on {@code store}, whose every call goes through {@code proxy}.
   *
   * @param scope the key scope of the check's records
   */
  public static void workIsToldItsLeaseIsLostBeforeAHangingRenewalGivesUp(
      IdempotencyStore store, FaultProxy proxy, String scope) throws Exception {
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try (Idempotency engine =
        Idempotency.builder(store)
            .defaults(IdempotencyConfig.custom().lease(LEASE).build())
            .build()) {
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch toldLost = new CountDownLatch(1);
      CountDownLatch healed = new CountDownLatch(1);
      Future<String> work =
          caller.submit(
              () ->
                  engine
                      .call(
                          IdempotencyKey.of(scope, UUID.randomUUID().toString()), Fingerprint.NONE)
                      .run(
                          context -> {
                            running.countDown();
                            context.leaseLost().toCompletableFuture().get(60, TimeUnit.SECONDS);
                            toldLost.countDown();
                            healed.await(60, TimeUnit.SECONDS);
                            return "finished after the loss";
                          }));
      assertThat(running.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      proxy.blackhole(true);

      assertThat(toldLost.await(LOST_WITHIN.toSeconds(), TimeUnit.SECONDS))
          .as("the work is told its lease is lost before a hanging renewal gives up")
          .isTrue();
      assertThat(proxy.bytesDropped()).as("a renewal was sent into the partition").isPositive();

      proxy.reset();
      proxy.cut(); // the connection used in the blackhole is out of step with the server
      healed.countDown();
      // stored late (nobody took the key over) or refused as a lost lease: either is an answer
      try {
        assertThat(work.get(WAIT.toSeconds(), TimeUnit.SECONDS))
            .isEqualTo("finished after the loss");
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(LeaseLostException.class);
      }
      String after =
          await()
              .atMost(WAIT)
              .ignoreExceptions()
              .until(
                  () ->
                      engine
                          .call(
                              IdempotencyKey.of(scope, UUID.randomUUID().toString()),
                              Fingerprint.NONE)
                          .run(context -> "after healing"),
                  "after healing"::equals);
      assertThat(after).isEqualTo("after healing");
    } finally {
      caller.shutdownNow();
    }
  }
}
