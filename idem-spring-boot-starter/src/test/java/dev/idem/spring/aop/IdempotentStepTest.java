package dev.idem.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.ExecutionContext;
import dev.idem.core.StepInputChangedException;
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
  void aStepWhoseWritesAreInTheTransactionIsStoredOnlyWhenItCommits() {
    runner
        .withBean(Ledger.class)
        .run(
            context -> {
              Ledger ledger = context.getBean(Ledger.class);
              TransactionTemplate transactions =
                  new TransactionTemplate(new ResourcelessTransactions());

              transactions.executeWithoutResult(
                  status -> {
                    ledger.book(order);
                    status.setRollbackOnly();
                  });
              String booked = transactions.execute(status -> ledger.book(order));

              assertThat(ledger.writes())
                  .as("the write rolled back, so its step was freed and ran again")
                  .isEqualTo(2);
              assertThat(booked).isEqualTo("entry 2");
              assertThat(ledger.book(order)).isEqualTo("entry 2");
              assertThat(ledger.writes()).isEqualTo(2);
            });
  }

  @Test
  void aCallRetriedAfterItFailedIsTheSameStepAndTheNextCallWithOtherInputIsAnother() {
    runner.run(
        context -> {
          Checkout checkout = context.getBean(Checkout.class);
          Gateway gateway = context.getBean(Gateway.class);
          gateway.timeOutNext(1);
          checkout.failAfterCharging(1);

          assertThatThrownBy(() -> checkout.payWithRetry(order, 500))
              .isInstanceOf(IllegalStateException.class)
              .hasMessageContaining("lost");
          String paid = checkout.payWithRetry(order, 500);

          assertThat(paid).isEqualTo("charge-2 then charge-3");
          assertThat(gateway.charges(order))
              .as("the rerun found the retried charge under its name and ran nothing again")
              .isEqualTo(3);
        });
  }

  @Test
  void aStepRetriedAfterItsTransactionFailedToCommitKeepsItsNameAndSoItsDownstreamKey() {
    runner
        .withBean(Ledger.class)
        .run(
            context -> {
              Ledger ledger = context.getBean(Ledger.class);

              ledger.bookRetryingTheCommit(order);

              assertThat(ledger.paths())
                  .as("the retry is the same step, not the next one")
                  .containsExactly("Ledger.write", "Ledger.write");
              assertThat(ledger.writes()).isEqualTo(2);
            });
  }

  /** A step whose writes are in the transaction it runs in. */
  public static class Ledger {
    private final AtomicInteger writes = new AtomicInteger();
    private final List<String> paths = new java.util.concurrent.CopyOnWriteArrayList<>();
    private Ledger self;

    @org.springframework.beans.factory.annotation.Autowired
    void self(@org.springframework.context.annotation.Lazy Ledger self) {
      this.self = self;
    }

    @Transactional
    @Idempotent(key = "#orderNo", operation = "book")
    public String book(String orderNo) {
      return self.write(orderNo);
    }

    @Transactional
    @Idempotent
    public String write(String orderNo) {
      ExecutionContext.current().ifPresent(step -> paths.add(step.key().stepPath()));
      return "entry " + writes.incrementAndGet();
    }

    /** Writes in a transaction whose first commit fails, and tries again as a retry would. */
    @Idempotent(key = "#orderNo", operation = "bookRetrying")
    public String bookRetryingTheCommit(String orderNo) {
      AtomicInteger commits = new AtomicInteger();
      ResourcelessTransactions failingOnce =
          new ResourcelessTransactions() {
            @Override
            protected void doCommit(
                org.springframework.transaction.support.DefaultTransactionStatus status) {
              if (commits.incrementAndGet() == 1) {
                throw new org.springframework.transaction.TransactionSystemException(
                    "the commit failed");
              }
            }
          };
      failingOnce.setRollbackOnCommitFailure(true);
      TransactionTemplate transactions = new TransactionTemplate(failingOnce);
      try {
        return transactions.execute(status -> self.write(orderNo));
      } catch (org.springframework.transaction.TransactionSystemException e) {
        return transactions.execute(status -> self.write(orderNo));
      }
    }

    public List<String> paths() {
      return List.copyOf(paths);
    }

    public int writes() {
      return writes.get();
    }
  }

  /** The third party: counts charges per order, as a real gateway would by the key it got. */
  public static class Gateway {
    private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();

    private final AtomicInteger timeOuts = new AtomicInteger();

    @Idempotent
    public String charge(String orderNo, long amount) {
      int n = charges.computeIfAbsent(orderNo, o -> new AtomicInteger()).incrementAndGet();
      if (timeOuts.getAndDecrement() > 0) {
        throw new IllegalArgumentException("the charge timed out; it may have happened");
      }
      return "charge-" + n;
    }

    public void timeOutNext(int times) {
      timeOuts.set(times);
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

    @Idempotent(key = "#orderNo", operation = "payWithRetry")
    public String payWithRetry(String orderNo, long amount) {
      String charge;
      try {
        charge = gateway.charge(orderNo, amount);
      } catch (IllegalArgumentException timedOut) {
        charge = gateway.charge(orderNo, amount); // what @Retryable around it would do
      }
      String tip = gateway.charge(orderNo, 1);
      lostNowAndThen();
      return charge + " then " + tip;
    }

    private void lostNowAndThen() {
      if (failAfterCharging.getAndDecrement() > 0) {
        throw new IllegalStateException("the reply was lost after the charge");
      }
    }
  }
}
