package dev.idem.spring.aop;

import static dev.idem.spring.StartFailures.stoppedTheStart;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.ReplayedFailureException;
import dev.idem.core.resume.Completer;
import dev.idem.core.resume.ResumeEntry;
import dev.idem.jdbc.JdbcResumeLog;
import dev.idem.spring.IdempotencyPolicyCustomizer;
import dev.idem.spring.Idempotent;
import dev.idem.spring.ResourcelessTransactions;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code @Idempotent(resumable = true)}: a call whose client never came back is finished by the
 * completer, through the bean, from the steps that ended, and its client gets the answer later.
 *
 * <p>Longer than 400 lines because the beans each test needs are declared here beside the tests;
 * each test is short and stands alone.
 */
class ResumableMethodTest {

  private static final Duration LEASE = Duration.ofMillis(300);

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdemAutoConfiguration.class,
                  IdemAopAutoConfiguration.class,
                  IdemMetricsAutoConfiguration.class))
          .withPropertyValues(
              "idem.completer.interval=1h",
              "idem.completer.max-attempts=2",
              "idem.completer.first-backoff=10ms",
              "idem.completer.max-backoff=10ms")
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
          .withBean(Gateway.class)
          .withBean(Mailer.class)
          .withBean(Payments.class);

  private final String order = "order-" + UUID.randomUUID();

  private static void waitOutTheLease() throws InterruptedException {
    Thread.sleep(LEASE.plusMillis(150).toMillis());
  }

  @Test
  void aPaymentWhoseClientGaveUpIsFinishedByTheCompleterAndChargedOnce() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          Gateway gateway = context.getBean(Gateway.class);
          Mailer mailer = context.getBean(Mailer.class);
          ResumableMethods resumables = context.getBean(ResumableMethods.class);
          mailer.down(true);

          assertThatThrownBy(() -> payments.pay(order, 500))
              .hasMessageContaining("mail server is down");
          assertThat(resumables.runOnce().taken()).as("not before its lease").isZero();
          mailer.down(false);
          waitOutTheLease();

          Completer.Pass pass = resumables.runOnce();

          assertThat(pass.finished()).as("%s", pass).isEqualTo(1);
          assertThat(gateway.charges(order)).isEqualTo(1);
          assertThat(mailer.sent(order)).isEqualTo(1);
          assertThat(payments.pay(order, 500)).isEqualTo("paid 500 with charge-1, mail-1");
          assertThat(payments.runs()).as("the client's repeat got the answer").isEqualTo(2);
          assertThat(resumables.count("finished")).isEqualTo(1);
          assertThat(
                  context
                      .getBean(MeterRegistry.class)
                      .get("idem.completer.calls")
                      .tag("outcome", "finished")
                      .functionCounter()
                      .count())
              .isEqualTo(1.0);
        });
  }

  @Test
  void theCompleterOfTheJdbcStoreKeepsItsCallsInATableBesideTheRecords() {
    runner
        .withBean(DataSource.class, ResumableMethodTest::h2)
        .withPropertyValues("idem.store=jdbc", "idem.jdbc.initialize-schema=always")
        .run(
            context -> {
              Payments payments = context.getBean(Payments.class);
              Mailer mailer = context.getBean(Mailer.class);
              ResumableMethods resumables = context.getBean(ResumableMethods.class);
              assertThat(resumables.completer().orElseThrow().resumeLog())
                  .isInstanceOf(JdbcResumeLog.class);
              mailer.down(true);
              assertThatThrownBy(() -> payments.pay(order, 700)).isNotNull();
              mailer.down(false);
              waitOutTheLease();

              assertThat(resumables.runOnce().finished()).isEqualTo(1);
              assertThat(payments.pay(order, 700)).isEqualTo("paid 700 with charge-1, mail-1");
              assertThat(context.getBean(Gateway.class).charges(order)).isEqualTo(1);
            });
  }

  private static DataSource h2() {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:idem-resumable;DB_CLOSE_DELAY=-1");
    return h2;
  }

  @Test
  void aPaymentThatKeepsFailingIsAbandonedAndFinishedOnceAnOperatorRetriesIt() {
    runner.run(
        context -> {
          Payments payments = context.getBean(Payments.class);
          Mailer mailer = context.getBean(Mailer.class);
          ResumableMethods resumables = context.getBean(ResumableMethods.class);
          Completer completer = resumables.completer().orElseThrow();
          mailer.down(true);
          assertThatThrownBy(() -> payments.pay(order, 500)).isNotNull();

          waitOutTheLease();
          assertThat(resumables.runOnce().failed()).isEqualTo(1);
          waitOutTheLease();
          assertThat(resumables.runOnce().abandoned()).isEqualTo(1);
          List<ResumeEntry> abandoned = completer.abandoned("pay", 10);
          assertThat(abandoned)
              .singleElement()
              .satisfies(e -> assertThat(e.attempts()).isEqualTo(2));

          mailer.down(false);
          assertThat(completer.retry(abandoned.get(0))).isTrue();
          assertThat(resumables.runOnce().finished()).isEqualTo(1);
          assertThat(context.getBean(Gateway.class).charges(order)).isEqualTo(1);
          assertThat(mailer.sent(order)).isEqualTo(1);
        });
  }

  @Test
  void aPaymentWhoseTransactionRolledBackIsRunAgainByTheCompleter() {
    runner
        .withUserConfiguration(Transactions.class)
        .withBean(Ledger.class)
        .run(
            context -> {
              Ledger ledger = context.getBean(Ledger.class);
              ResumableMethods resumables = context.getBean(ResumableMethods.class);
              ledger.rollBackNext();

              assertThatThrownBy(() -> ledger.book(order)).hasMessageContaining("rolled back");
              waitOutTheLease();
              Completer.Pass pass = resumables.runOnce();

              assertThat(pass.finished()).isEqualTo(1);
              assertThat(ledger.committed()).isEqualTo(1);
              assertThat(ledger.book(order)).isEqualTo("booked " + order);
              assertThat(ledger.committed()).isEqualTo(1);
            });
  }

  @Test
  void aDeclinedPaymentWhoseTransactionRolledBackIsNeverRunAgainByTheCompleter() {
    runner
        .withUserConfiguration(Transactions.class)
        .withBean(CardPayments.class)
        .withBean(
            IdempotencyPolicyCustomizer.class,
            () -> (operation, builder) -> builder.terminalWhen(e -> e instanceof Declined))
        .run(
            context -> {
              CardPayments cards = context.getBean(CardPayments.class);
              ResumableMethods resumables = context.getBean(ResumableMethods.class);

              assertThatThrownBy(() -> cards.pay(order)).isInstanceOf(Declined.class);
              waitOutTheLease();

              assertThat(resumables.runOnce().taken()).isZero();
              assertThat(cards.attempts()).isEqualTo(1);
            });
  }

  @Test
  void aCheckedTerminalFailureOfTheCompletersRunIsStoredAsTheClientsWouldBe() {
    runner
        .withBean(Refunds.class)
        .withBean(
            IdempotencyPolicyCustomizer.class,
            () -> (operation, builder) -> builder.terminalWhen(e -> e instanceof Refused))
        .run(
            context -> {
              Refunds refunds = context.getBean(Refunds.class);
              ResumableMethods resumables = context.getBean(ResumableMethods.class);
              assertThatThrownBy(() -> refunds.refund(order)).hasMessageContaining("bank is down");
              waitOutTheLease();

              Completer.Pass pass = resumables.runOnce();

              assertThat(pass.finished()).as("%s", pass).isEqualTo(1);
              assertThatThrownBy(() -> refunds.refund(order))
                  .isInstanceOf(ReplayedFailureException.class)
                  .hasMessageContaining("the refund was refused");
              assertThat(refunds.attempts()).isEqualTo(2);
            });
  }

  @Test
  void oneResumableMethodInheritedByTwoBeansIsResumedOnTheBeanThatRanIt() {
    runner
        .withBean("eu", EuGateway.class)
        .withBean("us", UsGateway.class)
        .run(
            context -> {
              EuGateway eu = context.getBean(EuGateway.class);
              UsGateway us = context.getBean(UsGateway.class);
              ResumableMethods resumables = context.getBean(ResumableMethods.class);
              eu.down(true);
              us.down(true);
              assertThatThrownBy(() -> eu.settle(order)).isNotNull();
              assertThatThrownBy(() -> us.settle(order)).isNotNull();
              eu.down(false);
              us.down(false);
              waitOutTheLease();

              assertThat(resumables.runOnce().finished()).isEqualTo(2);
              assertThat(eu.settle(order)).isEqualTo("eu settled " + order);
              assertThat(us.settle(order)).isEqualTo("us settled " + order);
            });
  }

  @Test
  void aResumableMethodWhoseTransactionJoinsItsCallersIsRefused() {
    runner
        .withUserConfiguration(DatabaseTransactions.class)
        .withPropertyValues("idem.store=memory")
        .withBean(Ledger.class)
        .run(
            context -> {
              Ledger ledger = context.getBean(Ledger.class);
              TransactionTemplate outer =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

              assertThatThrownBy(() -> outer.execute(status -> ledger.book(order)))
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("REQUIRES_NEW");
              assertThat(ledger.committed()).isZero();
              assertThat(ledger.book(order)).isEqualTo("booked " + order);
            });
  }

  @Test
  void anApplicationWithoutResumableMethodsStartsNoCompleter() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
        .withBean(Gateway.class)
        .run(
            context -> {
              ResumableMethods resumables = context.getBean(ResumableMethods.class);
              assertThat(resumables.completer()).isEmpty();
              assertThat(resumables.isRunning()).isFalse();
            });
  }

  @Test
  void aResumableMethodWithoutAKeyOrThatAnswersLaterStopsTheStart() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
        .withBean(Keyless.class)
        .run(context -> stoppedTheStart(context, "Keyless.pay", "names no key expression"));
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
        .withBean(Later.class)
        .run(context -> stoppedTheStart(context, "Later.pay", "CompletableFuture"));
  }

  /** The flow: a charge and a mail, each a step, around a call the completer may run again. */
  public static class Payments {
    private final AtomicInteger runs = new AtomicInteger();
    private final Gateway gateway;
    private final Mailer mailer;

    public Payments(Gateway gateway, Mailer mailer) {
      this.gateway = gateway;
      this.mailer = mailer;
    }

    @Idempotent(key = "#orderNo", operation = "pay", resumable = true, lease = "300ms")
    public String pay(String orderNo, int amount) {
      runs.incrementAndGet();
      String charge = gateway.charge(orderNo, amount);
      String mail = mailer.send(orderNo);
      return "paid " + amount + " with " + charge + ", " + mail;
    }

    public int runs() {
      return runs.get();
    }
  }

  /** The card gateway: each charge a step of the payment. */
  public static class Gateway {
    private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();

    @Idempotent
    public String charge(String orderNo, int amount) {
      return "charge-"
          + charges.computeIfAbsent(orderNo, o -> new AtomicInteger()).incrementAndGet();
    }

    int charges(String orderNo) {
      AtomicInteger n = charges.get(orderNo);
      return n == null ? 0 : n.get();
    }
  }

  /** A mail server that may be down. */
  public static class Mailer {
    private final AtomicBoolean down = new AtomicBoolean();
    private final Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();

    public void down(boolean isDown) {
      down.set(isDown);
    }

    @Idempotent
    public String send(String orderNo) {
      if (down.get()) {
        throw new IllegalStateException("the mail server is down");
      }
      return "mail-" + sent.computeIfAbsent(orderNo, o -> new AtomicInteger()).incrementAndGet();
    }

    int sent(String orderNo) {
      AtomicInteger n = sent.get(orderNo);
      return n == null ? 0 : n.get();
    }
  }

  /** A booking whose transaction may roll back. */
  public static class Ledger {
    private final AtomicBoolean rollBackNext = new AtomicBoolean();
    private final AtomicInteger committed = new AtomicInteger();

    public void rollBackNext() {
      rollBackNext.set(true);
    }

    @Transactional
    @Idempotent(key = "#orderNo", operation = "book", resumable = true, lease = "300ms")
    public String book(String orderNo) {
      if (rollBackNext.getAndSet(false)) {
        throw new IllegalStateException("the booking rolled back");
      }
      committed.incrementAndGet();
      return "booked " + orderNo;
    }

    int committed() {
      return committed.get();
    }
  }

  /** A declined card is a terminal answer, whatever the transaction does. */
  public static class Declined extends RuntimeException {
    public Declined() {
      super("the card was declined");
    }
  }

  /** A card payment whose card is declined; its transaction rolls back. */
  public static class CardPayments {
    private final AtomicInteger attempts = new AtomicInteger();

    @Transactional
    @Idempotent(key = "#orderNo", operation = "card", resumable = true, lease = "300ms")
    public String pay(String orderNo) {
      attempts.incrementAndGet();
      throw new Declined();
    }

    public int attempts() {
      return attempts.get();
    }
  }

  /** A checked refusal, terminal by the policy. */
  public static class Refused extends Exception {
    public Refused() {
      super("the refund was refused");
    }
  }

  /** A refund whose bank is down the first time and refuses it the second. */
  public static class Refunds {
    private final AtomicInteger attempts = new AtomicInteger();

    @Idempotent(key = "#orderNo", operation = "refund", resumable = true, lease = "300ms")
    public String refund(String orderNo) throws Refused {
      if (attempts.incrementAndGet() == 1) {
        throw new IllegalStateException("the bank is down");
      }
      throw new Refused();
    }

    public int attempts() {
      return attempts.get();
    }
  }

  /** A gateway whose settlement two beans inherit, each under its own operation. */
  public abstract static class RegionalGateway {
    private final AtomicBoolean down = new AtomicBoolean();

    protected abstract String region();

    @Idempotent(key = "#orderNo", resumable = true, lease = "300ms")
    public String settle(String orderNo) {
      if (down.get()) {
        throw new IllegalStateException(region() + " is down");
      }
      return region() + " settled " + orderNo;
    }

    public void down(boolean isDown) {
      down.set(isDown);
    }
  }

  /** The European gateway. */
  public static class EuGateway extends RegionalGateway {
    @Override
    protected String region() {
      return "eu";
    }
  }

  /** The American gateway. */
  public static class UsGateway extends RegionalGateway {
    @Override
    protected String region() {
      return "us";
    }
  }

  @EnableTransactionManagement
  static class Transactions {
    @org.springframework.context.annotation.Bean
    PlatformTransactionManager transactionManager() {
      return new ResourcelessTransactions();
    }
  }

  /** Transactions on a database, where a joined transaction is told from a new one. */
  @EnableTransactionManagement
  static class DatabaseTransactions {
    @org.springframework.context.annotation.Bean
    PlatformTransactionManager transactionManager() {
      return new DataSourceTransactionManager(h2());
    }
  }

  /** Resumable without a key. */
  public static class Keyless {
    @Idempotent(resumable = true)
    public String pay(String orderNo) {
      return orderNo;
    }
  }

  /** Resumable with an answer that ends later. */
  public static class Later {
    @Idempotent(key = "#orderNo", resumable = true)
    public CompletableFuture<String> pay(String orderNo) {
      return CompletableFuture.completedFuture(orderNo);
    }
  }
}
