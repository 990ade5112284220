package dev.idem.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.spring.IdempotencyPolicyCustomizer;
import dev.idem.spring.Idempotent;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;

/**
 * Spring Framework's {@code @Retryable} with {@code @Idempotent}, in the two ways they combine: on
 * one method, where the retry is always outside (each attempt is a call through the engine under
 * the same key), and on a method the idempotent one calls, where the retries run inside one claim.
 */
class RetryableAndIdempotentTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
          .withUserConfiguration(Resilient.class)
          .withBean(Gateway.class)
          .withBean(Payments.class)
          .withBean(
              IdempotencyPolicyCustomizer.class,
              () ->
                  (operation, builder) ->
                      builder.terminalWhen(e -> e instanceof IllegalArgumentException));

  @Configuration
  @EnableResilientMethods
  static class Resilient {}

  @Test
  void onOneMethodEachAttemptIsACallUnderTheSameKeyAndOnlyTheOneThatSucceedsIsStored() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          Gateway gateway = context.getBean(Gateway.class);
          gateway.failFirst("o1", 2);

          String first = payments.chargeWithRetries("o1");
          String repeat = payments.chargeWithRetries("o1");

          assertThat(first).isEqualTo("charged o1 on attempt 3");
          assertThat(repeat).isEqualTo(first);
          assertThat(gateway.attempts("o1")).isEqualTo(3);
        });
  }

  @Test
  void onOneMethodATerminalFailureIsStoredOnceAndTheRetriesGetItBackWithoutRunning() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          Gateway gateway = context.getBean(Gateway.class);

          assertThatThrownBy(() -> payments.chargeWithRetries("declined"))
              .hasMessageContaining("card declined");

          assertThat(gateway.attempts("declined")).isEqualTo(1);
        });
  }

  @Test
  void onAMethodItCallsTheRetriesRunInsideOneClaimAndARepeatReplaysTheEnd() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          Gateway gateway = context.getBean(Gateway.class);
          gateway.failFirst("o2", 2);

          String first = payments.chargeOnce("o2");
          String repeat = payments.chargeOnce("o2");

          assertThat(first).isEqualTo("charged o2 on attempt 3");
          assertThat(repeat).isEqualTo(first);
          assertThat(gateway.attempts("o2")).isEqualTo(3);
          assertThat(payments.bodies()).isEqualTo(1);
        });
  }

  /** A payment provider that fails an order's first attempts, and declines order "declined". */
  static class Gateway {
    // Proxied (for @Retryable): tests reach its state through methods, never fields.
    private final Map<String, Integer> failures = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

    public void failFirst(String order, int times) {
      failures.put(order, times);
    }

    public String charge(String order) {
      int attempt = attempts.computeIfAbsent(order, o -> new AtomicInteger()).incrementAndGet();
      if (order.equals("declined")) {
        throw new IllegalArgumentException("card declined");
      }
      if (attempt <= failures.getOrDefault(order, 0)) {
        throw new IllegalStateException("gateway timed out");
      }
      return "charged " + order + " on attempt " + attempt;
    }

    public int attempts(String order) {
      return attempts.getOrDefault(order, new AtomicInteger()).get();
    }

    @Retryable(maxRetries = 3, delay = 1)
    public String chargeRetrying(String order) {
      return charge(order);
    }
  }

  static class Payments {
    private final AtomicInteger bodies = new AtomicInteger();
    private final Gateway gateway;

    Payments(Gateway gateway) {
      this.gateway = gateway;
    }

    public int bodies() {
      return bodies.get();
    }

    @Retryable(maxRetries = 3, delay = 1)
    @Idempotent(key = "#p0")
    public String chargeWithRetries(String order) {
      return gateway.charge(order);
    }

    @Idempotent(key = "#p0")
    public String chargeOnce(String order) {
      bodies.incrementAndGet();
      return gateway.chargeRetrying(order);
    }
  }
}
