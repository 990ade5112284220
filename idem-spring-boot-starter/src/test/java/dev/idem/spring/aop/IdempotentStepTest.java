package dev.idem.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.StepInputChangedException;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.Idempotent;
import dev.idem.spring.NotInGuardedCallException;
import dev.idem.spring.ResourcelessTransactions;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code @Idempotent} methods that name no key: steps of the guarded call that runs them, so a
 * retry of the call does not run them again.
 */
class IdempotentStepTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdemAutoConfiguration.class,
                  IdemAopAutoConfiguration.class,
                  IdemMetricsAutoConfiguration.class))
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
          .withBean(Gateway.class)
          .withBean(Checkout.class);

  private final String order = UUID.randomUUID().toString();

  @Test
  void aRetryOfTheCallDoesNotChargeAgain() {
    runner.run(
        context -> {
          Checkout checkout = context.getBean(Checkout.class);
          Gateway gateway = context.getBean(Gateway.class);
          checkout.failAfterCharging(2);

          for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> checkout.pay(order, 500))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lost");
          }
          String receipt = checkout.pay(order, 500);

          assertThat(gateway.charges(order)).isEqualTo(1);
          assertThat(checkout.runs()).isEqualTo(3);
          assertThat(receipt).isEqualTo("paid with charge-1 for " + order);
          assertThat(context.getBean(MeterRegistry.class).get("idem.steps").counters())
              .extracting(c -> c.getId().getTag("outcome"))
              .contains("executed", "replayed");
        });
  }

  @Test
  void twoCallsOfTheSameMethodInOneRunAreTwoStepsEachRunOnce() {
    runner.run(
        context -> {
          Checkout checkout = context.getBean(Checkout.class);
          Gateway gateway = context.getBean(Gateway.class);
          checkout.failAfterCharging(1);

          assertThatThrownBy(() -> checkout.split(order, 300, 200))
              .isInstanceOf(IllegalStateException.class);
          List<String> charges = checkout.split(order, 300, 200);

          assertThat(charges).containsExactly("charge-1", "charge-2");
          assertThat(gateway.charges(order)).isEqualTo(2);
          IdempotencyStore store = context.getBean(IdempotencyStore.class);
          IdempotencyKey call = IdempotencyKey.of("split", order);
          assertThat(store.find(call.step("Gateway.charge"))).isPresent();
          assertThat(store.find(call.step("Gateway.charge#2"))).isPresent();
        });
  }

  @Test
  void aRetryThatChargesAnotherAmountFailsInsteadOfReplayingTheFirstCharge() {
    runner.run(
        context -> {
          Checkout checkout = context.getBean(Checkout.class);
          checkout.failAfterCharging(1);
          assertThatThrownBy(() -> checkout.payUncompared(order, 10))
              .isInstanceOf(IllegalStateException.class);

          assertThatThrownBy(() -> checkout.payUncompared(order, 1000))
              .isInstanceOf(StepInputChangedException.class)
              .hasMessageContaining("Gateway.charge");
          assertThat(context.getBean(Gateway.class).charges(order)).isEqualTo(1);
        });
  }

  @Test
  void aStepCalledOutsideAGuardedCallFailsAndSaysWhy() {
    runner.run(
        context -> {
          Gateway gateway = context.getBean(Gateway.class);
          assertThatThrownBy(() -> gateway.charge(order, 5))
              .isInstanceOf(NotInGuardedCallException.class)
              .hasMessageContaining("Gateway.charge names no key");
          assertThat(gateway.charges(order)).isZero();
        });
  }

  @Test
  void aStepThatWouldJoinItsCallersTransactionIsRefusedBeforeItRuns() {
    runner
        .withBean(Ledger.class)
        .run(
            context -> {
              Ledger ledger = context.getBean(Ledger.class);
              TransactionTemplate transactions =
                  new TransactionTemplate(new ResourcelessTransactions());

              assertThatThrownBy(
                      () -> transactions.executeWithoutResult(status -> ledger.book(order, false)))
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("Ledger.write")
                  .hasMessageContaining("joins its caller's transaction");
              assertThat(ledger.writes()).isZero();

              transactions.executeWithoutResult(status -> ledger.book(order + "-own", true));
              assertThat(ledger.writes()).isEqualTo(1);
            });
  }

  /** Steps with transactions of their own declaring: one joins its caller's, one does not. */
  public static class Ledger {
    private final AtomicInteger writes = new AtomicInteger();
    private Ledger self;

    @org.springframework.beans.factory.annotation.Autowired
    void self(@org.springframework.context.annotation.Lazy Ledger self) {
      this.self = self;
    }

    @Idempotent(key = "#orderNo", operation = "book")
    public String book(String orderNo, boolean own) {
      return own ? self.writeOwn(orderNo) : self.write(orderNo);
    }

    @Transactional
    @Idempotent
    public String write(String orderNo) {
      return "entry " + writes.incrementAndGet();
    }

    @Transactional(propagation = Propagation.REQUIRES_NEW)
    @Idempotent
    public String writeOwn(String orderNo) {
      return "entry " + writes.incrementAndGet();
    }

    public int writes() {
      return writes.get();
    }
  }

  /** The third party: counts charges per order, as a real gateway would by the key it got. */
  public static class Gateway {
    private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();

    @Idempotent
    public String charge(String orderNo, long amount) {
      return "charge-"
          + charges.computeIfAbsent(orderNo, o -> new AtomicInteger()).incrementAndGet();
    }

    int charges(String orderNo) {
      AtomicInteger n = charges.get(orderNo);
      return n == null ? 0 : n.get();
    }
  }

  /** A guarded call with a charge in it, whose reply is lost after the charge now and then. */
  public static class Checkout {
    private final Gateway gateway;
    final AtomicInteger failAfterCharging = new AtomicInteger();
    final AtomicInteger runs = new AtomicInteger();

    public Checkout(Gateway gateway) {
      this.gateway = gateway;
    }

    // through the proxy: its fields are not the bean's
    public void failAfterCharging(int times) {
      failAfterCharging.set(times);
    }

    public int runs() {
      return runs.get();
    }

    @Idempotent(key = "#orderNo", operation = "pay")
    public String pay(String orderNo, long amount) {
      runs.incrementAndGet();
      String charge = gateway.charge(orderNo, amount);
      lostNowAndThen();
      return "paid with " + charge + " for " + orderNo;
    }

    @Idempotent(key = "#orderNo", operation = "payUncompared", compareArguments = false)
    public String payUncompared(String orderNo, long amount) {
      String charge = gateway.charge(orderNo, amount);
      lostNowAndThen();
      return charge;
    }

    @Idempotent(key = "#orderNo", operation = "split")
    public List<String> split(String orderNo, long first, long second) {
      String a = gateway.charge(orderNo, first);
      String b = gateway.charge(orderNo, second);
      lostNowAndThen();
      return List.of(a, b);
    }

    private void lostNowAndThen() {
      if (failAfterCharging.getAndDecrement() > 0) {
        throw new IllegalStateException("the reply was lost after the charge");
      }
    }
  }
}
