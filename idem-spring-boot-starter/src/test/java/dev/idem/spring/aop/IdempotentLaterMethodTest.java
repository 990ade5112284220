package dev.idem.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.RecordState;
import dev.idem.spring.Idempotent;
import dev.idem.spring.StartFailures;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.annotation.Transactional;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code @Idempotent} on bean methods whose result ends later: {@code CompletableFuture}, {@code
 * Mono} and {@code Flux}, on the in-memory store.
 */
class IdempotentLaterMethodTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
          .withPropertyValues("idem.async.max-elements=3")
          .withBean(Payments.class);

  private final String key = UUID.randomUUID().toString();

  @Test
  void aFutureRunsOnceAndItsValueIsReplayed() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          assertThat(payments.charge(key).get(10, TimeUnit.SECONDS)).isEqualTo("charge-1");
          assertThat(payments.charge(key).get(10, TimeUnit.SECONDS)).isEqualTo("charge-1");
          assertThat(payments.runs()).hasValue(1);
        });
  }

  @Test
  void aFutureThatFailsFreesTheKeyForTheRetry() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          assertThatThrownBy(() -> payments.flaky(key).get(10, TimeUnit.SECONDS))
              .isInstanceOf(ExecutionException.class)
              .hasRootCauseMessage("gateway timed out");
          assertThat(payments.flaky(key).get(10, TimeUnit.SECONDS)).isEqualTo("charged on try 2");
        });
  }

  @Test
  void aMonoRunsNothingBeforeItIsSubscribedThenOnceForAllSubscriptions() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          Mono<String> refund = payments.refund(key);
          assertThat(payments.runs()).hasValue(0);

          assertThat(refund.block(WAIT)).isEqualTo("refund-1");
          assertThat(refund.block(WAIT)).isEqualTo("refund-1");
          assertThat(payments.refund(key).block(WAIT)).isEqualTo("refund-1");
          assertThat(payments.runs()).hasValue(1);
        });
  }

  @Test
  void anEmptyMonoIsStoredAndReplayedEmpty() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          assertThat(payments.notify(key).blockOptional(WAIT)).isEmpty();
          assertThat(payments.notify(key).blockOptional(WAIT)).isEmpty();
          assertThat(payments.runs()).hasValue(1);
          IdempotencyStore store = context.getBean(IdempotencyStore.class);
          assertThat(store.find(IdempotencyKey.of("notify", key)).orElseThrow().state())
              .isEqualTo(RecordState.COMPLETED);
        });
  }

  @Test
  void theSubscribersContextReachesTheWork() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          String tenant =
              payments.tenant(key).contextWrite(c -> c.put("tenant", "acme")).block(WAIT);
          assertThat(tenant).isEqualTo("acme");
        });
  }

  @Test
  void aSubscriberThatCancelsMidWorkLeavesTheWorkToEndOnceAndItsAnswerStored() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          IdempotencyStore store = context.getBean(IdempotencyStore.class);
          IdempotencyKey stored = IdempotencyKey.of("slow", key);
          Disposable subscriber = payments.slow(key).subscribe();
          await().atMost(WAIT).until(() -> payments.started().getCount() == 0);

          subscriber.dispose();
          payments.proceed().countDown();

          await()
              .atMost(WAIT)
              .until(
                  () -> store.find(stored).map(r -> r.state()).orElse(null),
                  RecordState.COMPLETED::equals);
          assertThat(payments.slow(key).block(WAIT)).isEqualTo("slow-1");
          assertThat(payments.runs()).hasValue(1);
        });
  }

  @Test
  void aFluxIsCollectedRunOnceAndReplayedInOrder() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          assertThat(payments.lines(key, 3).collectList().block(WAIT))
              .containsExactly("line-1", "line-2", "line-3");
          assertThat(payments.lines(key, 3).collectList().block(WAIT))
              .containsExactly("line-1", "line-2", "line-3");
          assertThat(payments.runs()).hasValue(1);
        });
  }

  @Test
  void aFluxLongerThanTheLimitRunsToItsEndOnceAndIsNotReplayed() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          assertThatThrownBy(() -> payments.lines(key, 5).collectList().block(WAIT))
              .isInstanceOf(OutcomeTooLargeException.class)
              .hasMessageContaining("5 elements, over idem.async.max-elements of 3");
          assertThat(payments.emitted()).hasValue(5);
          assertThatThrownBy(() -> payments.lines(key, 5).collectList().block(WAIT))
              .isInstanceOf(OutcomeNotReplayableException.class);
          assertThat(payments.runs()).hasValue(1);
        });
  }

  @Test
  void aBadKeyIsTheMonosErrorNotAThrow() {
    runner.run(
        context -> {
          Mono<String> refund = context.getBean(Payments.class).refund(null);
          assertThatThrownBy(() -> refund.block(WAIT)).isInstanceOf(InvalidKeyException.class);
        });
  }

  @Test
  void aPlainFutureFailsTheStartupRatherThanRunUnguarded() {
    runner
        .withBean(PlainFutures.class)
        .run(
            context -> StartFailures.stoppedTheStart(context, "PlainFutures.later returns Future"));
  }

  @Test
  void aReactiveMethodInATransactionFailsTheStartup() {
    runner
        .withBean(ReactiveInTransaction.class)
        .run(context -> StartFailures.stoppedTheStart(context, "in a @Transactional method"));
  }

  /** The bean whose methods end later. */
  static class Payments {
    // Read through methods: a test holds the proxy, whose own fields are empty.
    private final AtomicInteger runs = new AtomicInteger();
    private final AtomicInteger emitted = new AtomicInteger();
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch proceed = new CountDownLatch(1);
    private final AtomicInteger tries = new AtomicInteger();

    public AtomicInteger runs() {
      return runs;
    }

    public AtomicInteger emitted() {
      return emitted;
    }

    public CountDownLatch started() {
      return started;
    }

    public CountDownLatch proceed() {
      return proceed;
    }

    @Idempotent(operation = "charge", key = "#key")
    public CompletableFuture<String> charge(String key) {
      return CompletableFuture.supplyAsync(() -> "charge-" + runs.incrementAndGet());
    }

    @Idempotent(operation = "flaky", key = "#key")
    public CompletableFuture<String> flaky(String key) {
      int attempt = tries.incrementAndGet();
      return attempt == 1
          ? CompletableFuture.failedFuture(new IllegalStateException("gateway timed out"))
          : CompletableFuture.completedFuture("charged on try " + attempt);
    }

    @Idempotent(operation = "refund", key = "#key")
    public Mono<String> refund(String key) {
      return Mono.fromSupplier(() -> "refund-" + runs.incrementAndGet());
    }

    @Idempotent(operation = "notify", key = "#key")
    public Mono<Void> notify(String key) {
      return Mono.fromRunnable(runs::incrementAndGet);
    }

    @Idempotent(operation = "tenant", key = "#key")
    public Mono<String> tenant(String key) {
      return Mono.deferContextual(c -> Mono.just(c.get("tenant")));
    }

    @Idempotent(operation = "slow", key = "#key")
    public Mono<String> slow(String key) {
      return Mono.fromCallable(
              () -> {
                started.countDown();
                proceed.await();
                return "slow-" + runs.incrementAndGet();
              })
          .subscribeOn(Schedulers.boundedElastic());
    }

    @Idempotent(operation = "lines", key = "#key")
    public Flux<String> lines(String key, int count) {
      runs.incrementAndGet();
      return Flux.range(1, count).map(i -> "line-" + i).doOnNext(line -> emitted.incrementAndGet());
    }
  }

  /** A bean whose annotated method hands back a future the advice cannot follow. */
  static class PlainFutures {
    @Idempotent(key = "#key")
    public Future<String> later(String key) {
      return CompletableFuture.completedFuture(key);
    }
  }

  /** A bean whose reactive annotated method is transactional. */
  static class ReactiveInTransaction {
    @Transactional
    @Idempotent(key = "#key")
    public Mono<String> pay(String key) {
      return Mono.just(key);
    }
  }
}
