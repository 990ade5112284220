package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotentOperation;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.KeyReuseException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.RecordState;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** The public {@code Mono} calls of the engine, as the starter configures them. */
class ReactiveIdempotencyTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class));

  private final String key = UUID.randomUUID().toString();
  private final AtomicInteger runs = new AtomicInteger();

  @Test
  void nothingRunsBeforeSubscriptionThenOnceForEveryRepeat() {
    runner.run(
        context -> {
          ReactiveIdempotency reactive = context.getBean(ReactiveIdempotency.class);
          IdempotentOperation<String> payments = payments(context.getBean(Idempotency.class));
          Mono<String> charge = reactive.execute(payments, key, "order-1", ctx -> charged());
          assertThat(runs).hasValue(0);

          assertThat(charge.block(WAIT)).isEqualTo("charge-1");
          assertThat(charge.block(WAIT)).isEqualTo("charge-1");
          Executed<String> repeat =
              reactive
                  .executeWithStatus(
                      payments, key, Fingerprint.of("payments", "order-1"), c -> charged())
                  .block(WAIT);
          assertThat(repeat.replayed()).isTrue();
          assertThat(repeat.value()).isEqualTo("charge-1");
          assertThat(runs).hasValue(1);
        });
  }

  @Test
  void anEnginesCallRunsItsMonoOnceAndRepeatsReplayIt() {
    runner.run(
        context -> {
          ReactiveIdempotency reactive = context.getBean(ReactiveIdempotency.class);
          Idempotency idempotency = context.getBean(Idempotency.class);
          dev.idem.core.IdempotentCall<String> call =
              idempotency
                  .call(
                      dev.idem.core.IdempotencyKey.of("refunds", key),
                      Fingerprint.of("refunds", "r-1"))
                  .config(
                      dev.idem.core.IdempotencyConfig.from(idempotency.defaults())
                          .lease(Duration.ofSeconds(7))
                          .build());
          Executed<String> first = reactive.executeWithStatus(call, c -> charged()).block(WAIT);
          Executed<String> again = reactive.executeWithStatus(call, c -> charged()).block(WAIT);
          assertThat(first.replayed()).isFalse();
          assertThat(again.replayed()).isTrue();
          assertThat(again.value()).isEqualTo("charge-1");
          assertThat(runs).hasValue(1);
        });
  }

  @Test
  void aRepeatWithAnotherRequestIsTheMonosErrorAndRunsNothing() {
    runner.run(
        context -> {
          ReactiveIdempotency reactive = context.getBean(ReactiveIdempotency.class);
          IdempotentOperation<String> payments = payments(context.getBean(Idempotency.class));
          reactive.execute(payments, key, "order-1", ctx -> charged()).block(WAIT);

          assertThatThrownBy(
                  () -> reactive.execute(payments, key, "order-2", ctx -> charged()).block(WAIT))
              .isInstanceOf(KeyReuseException.class);
          assertThat(runs).hasValue(1);
        });
  }

  @Test
  void aBadKeyIsTheMonosErrorNotAThrow() {
    runner.run(
        context -> {
          ReactiveIdempotency reactive = context.getBean(ReactiveIdempotency.class);
          IdempotentOperation<String> payments = payments(context.getBean(Idempotency.class));
          Mono<String> charge = reactive.execute(payments, "bad key\n", "order", ctx -> charged());

          assertThatThrownBy(() -> charge.block(WAIT)).isInstanceOf(InvalidKeyException.class);
          assertThat(runs).hasValue(0);
        });
  }

  @Test
  void aDuplicateInFlightIsRefusedAndTheSubscribersContextReachesTheWork() {
    runner.run(
        context -> {
          ReactiveIdempotency reactive = context.getBean(ReactiveIdempotency.class);
          IdempotentOperation<String> payments = payments(context.getBean(Idempotency.class));
          CountDownLatch release = new CountDownLatch(1);
          Mono<String> slow =
              reactive.execute(
                  payments,
                  key,
                  "order",
                  ctx ->
                      Mono.deferContextual(
                          sub ->
                              Mono.fromCallable(
                                      () -> {
                                        release.await(10, TimeUnit.SECONDS);
                                        return "for " + sub.get("user");
                                      })
                                  .subscribeOn(Schedulers.boundedElastic())));
          Mono<String> first = slow.contextWrite(c -> c.put("user", "alice")).cache();
          first.subscribe();
          await()
              .atMost(WAIT)
              .until(() -> state(context.getBean(IdempotencyStore.class), payments));

          assertThatThrownBy(
                  () -> reactive.execute(payments, key, "order", c -> charged()).block(WAIT))
              .isInstanceOf(RequestInProgressException.class);
          release.countDown();
          assertThat(first.block(WAIT)).isEqualTo("for alice");
          assertThat(runs).hasValue(0);
        });
  }

  @Test
  void aSubscriberThatCancelsLeavesTheWorkToEndOnceAndItsAnswerStored() {
    runner.run(
        context -> {
          ReactiveIdempotency reactive = context.getBean(ReactiveIdempotency.class);
          IdempotentOperation<String> payments = payments(context.getBean(Idempotency.class));
          CountDownLatch release = new CountDownLatch(1);
          Disposable cancelled =
              reactive
                  .execute(
                      payments,
                      key,
                      "order",
                      ctx ->
                          Mono.fromCallable(
                                  () -> {
                                    release.await(10, TimeUnit.SECONDS);
                                    return "charge-" + runs.incrementAndGet();
                                  })
                              .subscribeOn(Schedulers.boundedElastic()))
                  .subscribe();
          await()
              .atMost(WAIT)
              .until(() -> state(context.getBean(IdempotencyStore.class), payments));
          cancelled.dispose();
          release.countDown();

          await()
              .atMost(WAIT)
              .untilAsserted(
                  () ->
                      assertThat(
                              reactive
                                  .execute(payments, key, "order", ctx -> charged())
                                  .block(WAIT))
                          .isEqualTo("charge-1"));
          assertThat(runs).hasValue(1);
        });
  }

  @Test
  void anEmptyWorkIsReplayedEmpty() {
    runner.run(
        context -> {
          ReactiveIdempotency reactive = context.getBean(ReactiveIdempotency.class);
          IdempotentOperation<String> payments = payments(context.getBean(Idempotency.class));
          Mono<String> nothing =
              reactive.execute(
                  payments, key, "order", ctx -> Mono.fromRunnable(runs::incrementAndGet));

          assertThat(nothing.blockOptional(WAIT)).isEmpty();
          assertThat(nothing.blockOptional(WAIT)).isEmpty();
          assertThat(runs).hasValue(1);
        });
  }

  private Mono<String> charged() {
    return Mono.fromCallable(() -> "charge-" + runs.incrementAndGet());
  }

  private static IdempotentOperation<String> payments(Idempotency idempotency) {
    return idempotency.operation("payments");
  }

  private boolean state(IdempotencyStore store, IdempotentOperation<String> payments) {
    return store
        .find(payments.key(key))
        .filter(r -> r.state() == RecordState.IN_PROGRESS)
        .isPresent();
  }
}
