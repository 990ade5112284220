package dev.idem.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.KeyReuseException;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdempotencyPolicyCustomizer;
import dev.idem.spring.Idempotent;
import dev.idem.spring.StartFailures;
import dev.idem.spring.aop.Jobs.Receipt;
import dev.idem.spring.aop.Jobs.Settle;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code @Idempotent} on plain bean methods, on the in-memory store. */
class IdempotentMethodTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
          .withBean(Jobs.class)
          .withBean(
              IdempotencyPolicyCustomizer.class,
              () ->
                  (operation, builder) -> {
                    if (operation.equals("refunds")) {
                      builder.terminalWhen(e -> e instanceof IllegalArgumentException);
                    }
                  });

  private final String key = UUID.randomUUID().toString();

  @Test
  void runsOnceAndReplaysTheReturnValueToARepeat() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          Receipt first = jobs.settle(new Settle(key, 100, "12:00"));
          Receipt second = jobs.settle(new Settle(key, 100, "12:00"));
          assertThat(second).isEqualTo(first);
          assertThat(jobs.runs("settle")).isEqualTo(1);
        });
  }

  @Test
  void theOperationIsTheSimpleClassNameAndMethodByDefault() {
    runner.run(
        context -> {
          context.getBean(Jobs.class).receipts(key);
          IdempotencyStore store = context.getBean(IdempotencyStore.class);
          assertThat(store.find(IdempotencyKey.of("Jobs.receipts", key))).isPresent();
        });
  }

  @Test
  void aGenericReturnTypeIsReadBackAsDeclared() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          List<Receipt> first = jobs.receipts(key);
          List<Receipt> replayed = jobs.receipts(key);
          assertThat(replayed).isEqualTo(first).hasOnlyElementsOfType(Receipt.class);
          assertThat(jobs.runs("receipts")).isEqualTo(1);
        });
  }

  @Test
  void positionalArgumentsWorkInTheKeyExpression() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          String first = jobs.positional(key, 1);
          assertThat(jobs.positional(key, 1)).isEqualTo(first);
          assertThat(jobs.positional(key, 2)).isNotEqualTo(first);
          assertThat(jobs.runs("positional")).isEqualTo(2);
        });
  }

  @Test
  void optionalEmptyAndPresentAreReplayed() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          assertThat(jobs.maybe(key, false)).isEmpty();
          assertThat(jobs.maybe(key, false)).isEmpty();
          Optional<Receipt> present = jobs.maybe(key + "p", true);
          assertThat(jobs.maybe(key + "p", true)).isEqualTo(present).isPresent();
          assertThat(jobs.runs("maybe-false")).isEqualTo(1);
          assertThat(jobs.runs("maybe-true")).isEqualTo(1);
        });
  }

  @Test
  void voidAndPrimitiveMethodsRunOnce() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          jobs.effect(key);
          jobs.effect(key);
          int first = jobs.primitive(key);
          assertThat(jobs.primitive(key)).isEqualTo(first);
          assertThat(jobs.runs("effect")).isEqualTo(1);
          assertThat(jobs.runs("primitive")).isEqualTo(1);
        });
  }

  @Test
  void aRepeatWithAnotherFingerprintIsKeyReuse() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          jobs.settle(new Settle(key, 100, "12:00"));
          assertThatThrownBy(() -> jobs.settle(new Settle(key, 999, "12:00")))
              .isInstanceOf(KeyReuseException.class);
          assertThat(jobs.runs("settle")).isEqualTo(1);
        });
  }

  @Test
  void everyArgumentIsComparedWhenNoFingerprintIsNamed() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          Receipt first = jobs.settleAmount(key, 10);
          assertThatThrownBy(() -> jobs.settleAmount(key, 1000))
              .isInstanceOf(KeyReuseException.class);
          assertThat(jobs.settleAmount(key, 10)).isEqualTo(first);
          assertThat(jobs.runs("settleAmount")).isEqualTo(1);
        });
  }

  @Test
  void compareArgumentsFalseLetsTheKeyAloneNameTheCall() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          Receipt first = jobs.settleUncompared(key, 10);
          assertThat(jobs.settleUncompared(key, 1000)).isEqualTo(first);
          assertThat(jobs.runs("settleUncompared")).isEqualTo(1);
        });
  }

  @Test
  void anArgumentThatCannotBeComparedFailsTheStartup() {
    runner
        .withBean(CallbackJobs.class)
        .run(context -> StartFailures.stoppedTheStart(context, "CallbackJobs.notify", "onDone"));
  }

  @Test
  void anArgumentThatComparingWouldDrainFailsTheStartup() {
    runner
        .withBean(IteratorJobs.class)
        .run(context -> StartFailures.stoppedTheStart(context, "IteratorJobs.settleAll", "orders"));
  }

  /** A bean whose annotated method takes an iterator, which writing it as JSON would drain. */
  static class IteratorJobs {
    @Idempotent(key = "#key")
    public int settleAll(String key, java.util.Iterator<String> orders) {
      int n = 0;
      while (orders.hasNext()) {
        orders.next();
        n++;
      }
      return n;
    }
  }

  /** A bean whose annotated method takes a callback, which no fingerprint can compare. */
  static class CallbackJobs {
    @Idempotent(key = "#key")
    public void notify(String key, Runnable onDone) {
      onDone.run();
    }
  }

  @Test
  void anIgnoredFieldDoesNotChangeTheFingerprint() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          Receipt first = jobs.settle(new Settle(key, 100, "12:00"));
          assertThat(jobs.settle(new Settle(key, 100, "12:05"))).isEqualTo(first);
          assertThat(jobs.runs("settle")).isEqualTo(1);
        });
  }

  @Test
  void theOperationsPolicyIsNamedInBracketsAndItsIgnoredFieldsApply() {
    runner
        .withPropertyValues(
            "idem.policies[Jobs.settle].ignore-fields=amount",
            "idem.policies[Jobs.settle].retention=5m")
        .run(
            context -> {
              assertThat(
                      context.getBean(IdemPolicies.class).forOperation("Jobs.settle").retention())
                  .isEqualTo(Duration.ofMinutes(5));
              Jobs jobs = context.getBean(Jobs.class);
              Receipt first = jobs.settle(new Settle(key, 100, "12:00"));
              assertThat(jobs.settle(new Settle(key, 999, "12:05"))).isEqualTo(first);
              assertThat(jobs.runs("settle")).isEqualTo(1);
            });
  }

  @Test
  void aNullBlankOrInvalidKeyIsRefusedBeforeTheMethodRuns() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          assertThatThrownBy(() -> jobs.receipts(null))
              .isInstanceOfSatisfying(
                  InvalidKeyException.class, e -> assertThat(e.isMissing()).isTrue());
          assertThatThrownBy(() -> jobs.receipts("  ")).isInstanceOf(InvalidKeyException.class);
          assertThatThrownBy(() -> jobs.receipts("a b")).isInstanceOf(InvalidKeyException.class);
          assertThatThrownBy(() -> jobs.receipts("x".repeat(256)))
              .isInstanceOf(InvalidKeyException.class);
          assertThatThrownBy(() -> jobs.settle(null))
              .isInstanceOf(InvalidKeyException.class)
              .hasMessageContaining("#cmd.id");
          assertThat(jobs.runs("receipts")).isZero();
          assertThat(jobs.runs("settle")).isZero();
        });
  }

  @Test
  void aKeyThatIsNotRequiredRunsUnguardedWhenAbsent() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          jobs.optionalKey(null);
          jobs.optionalKey("");
          jobs.optionalKey(key);
          jobs.optionalKey(key);
          assertThat(jobs.runs("optionalKey")).isEqualTo(3);
        });
  }

  @Test
  void aTerminalFailureIsStoredAndReplayedAndOthersFreeTheKey() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          assertThatThrownBy(() -> jobs.refund(key, "declined"))
              .isInstanceOf(IllegalArgumentException.class);
          assertThatThrownBy(() -> jobs.refund(key, "declined"))
              .isInstanceOfSatisfying(
                  ReplayedFailureException.class,
                  e -> {
                    assertThat(e.originalType())
                        .isEqualTo(IllegalArgumentException.class.getName());
                    assertThat(e.getMessage()).isEqualTo("card declined");
                  });
          assertThat(jobs.runs("refund")).isEqualTo(1);

          String other = key + "-2";
          assertThatThrownBy(() -> jobs.refund(other, "timeout"))
              .isInstanceOf(IllegalStateException.class);
          assertThatThrownBy(() -> jobs.refund(other, "io")).isInstanceOf(IOException.class);
          assertThat(jobs.refund(other, "ok")).isEqualTo("refunded ok");
          assertThat(jobs.refund(other, "ok")).isEqualTo("refunded ok");
          assertThat(jobs.runs("refund")).isEqualTo(4);
        });
  }

  @Test
  void theKeyIsInTheMdcWhileTheMethodRuns() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          assertThat(jobs.mdc(key)).isEqualTo("Jobs.mdc/" + key);
        });
  }

  @Test
  void theMethodCountsAsInFlightWhileItRuns() {
    runner
        .withConfiguration(AutoConfigurations.of(IdemMetricsAutoConfiguration.class))
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              DoubleSupplier gauge =
                  () -> registry.get(IdemMetricsAutoConfiguration.IN_FLIGHT).gauge().value();
              Jobs jobs = context.getBean(Jobs.class);
              assertThat(jobs.during(key, gauge)).isEqualTo(1);
              assertThat(gauge.getAsDouble()).isZero();
            });
  }

  @Test
  void aCallerResolverPutsTheCallerIntoTheScope() {
    runner
        .withBean(IdempotentCallerResolver.class, () -> (method, arguments) -> "alice")
        .run(
            context -> {
              context.getBean(Jobs.class).receipts(key);
              IdempotencyStore store = context.getBean(IdempotencyStore.class);
              assertThat(store.find(IdempotencyKey.of("Jobs.receipts|alice", key))).isPresent();
              assertThat(store.find(IdempotencyKey.of("Jobs.receipts", key))).isEmpty();
            });
  }

  @Test
  void aMethodWithoutAKeyWhoseResultEndsLaterFailsTheStartup() {
    runner
        .withBean(KeylessJobs.class)
        .run(
            context ->
                StartFailures.stoppedTheStart(
                    context, "KeylessJobs.later names no key", "CompletableFuture"));
  }

  /** A bean whose annotated method names no key and answers later: it can be no step. */
  static class KeylessJobs {
    @Idempotent(key = "")
    public java.util.concurrent.CompletableFuture<String> later(String key) {
      return java.util.concurrent.CompletableFuture.completedFuture(key);
    }
  }

  @Test
  void methodsWithoutTheAnnotationAndControllersAreLeftAlone() {
    runner
        .withBean(Handlers.class)
        .run(
            context -> {
              Jobs jobs = context.getBean(Jobs.class);
              jobs.notAnnotated(key);
              jobs.notAnnotated(key);
              assertThat(jobs.runs("notAnnotated")).isEqualTo(2);
              assertThat(AopUtils.isAopProxy(context.getBean(Handlers.class))).isFalse();
            });
  }

  @Test
  void withoutJacksonABeanWithAnnotatedMethodsFailsAtStartupInsteadOfRunningUnguarded() {
    runner
        .withClassLoader(new FilteredClassLoader("tools.jackson"))
        .run(context -> StartFailures.stoppedTheStart(context, "needs Jackson 3"));
  }

  @Test
  void theApplicationsOwnInterceptorReplacesIdems() {
    AtomicInteger seen = new AtomicInteger();
    runner
        .withBean(
            IdempotentMethodInterceptor.class,
            () ->
                new IdempotentMethodInterceptor(null, null, null, null, null, null, null) {
                  @Override
                  public Object invoke(MethodInvocation invocation) throws Throwable {
                    seen.incrementAndGet();
                    return invocation.proceed();
                  }
                })
        .run(
            context -> {
              Jobs jobs = context.getBean(Jobs.class);
              jobs.receipts(key);
              jobs.receipts(key);
              assertThat(seen).hasValue(2);
              assertThat(jobs.runs("receipts")).isEqualTo(2);
            });
  }

  /** A controller: its key comes from the request, so the advice must not touch it. */
  @RestController
  static class Handlers {
    @Idempotent
    @PostMapping("/x")
    String handle() {
      return "x";
    }
  }
}
