package dev.idem.spring.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.InvalidKeyException;
import dev.idem.spring.EventId;
import dev.idem.spring.Idempotent;
import dev.idem.spring.ResourcelessTransactions;
import dev.idem.spring.aop.IdempotentCallerResolver;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Controller;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code @Idempotent} event listeners that name no key: keyed by the identity their event declares
 * with {@link EventId}, once per listener, however often the event is published.
 */
class EventListenerKeyTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class));

  /** A record event whose identity is a component. */
  public record Paid(@EventId String eventId, String orderNo, long amount) {}

  /** A record event whose identity is derived by a method. */
  public record Refunded(String paymentNo, long amount) {
    @EventId
    public String eventId() {
      return "refunded:" + paymentNo;
    }
  }

  /** A class event whose identity is a field read through its getter. */
  public static class Shipped {
    @EventId private final String id;

    public Shipped(String id) {
      this.id = id;
    }

    public String getId() {
      return id;
    }
  }

  /** Two listeners of one event, and one of a class event; each counts what it handled. */
  public static class Loyalty {
    private final List<String> points = new CopyOnWriteArrayList<>();
    private final List<String> mails = new CopyOnWriteArrayList<>();
    private final List<String> shipped = new CopyOnWriteArrayList<>();
    private final List<String> refunded = new CopyOnWriteArrayList<>();

    // read through methods: the bean is a proxy, whose own fields are empty
    public List<String> points() {
      return points;
    }

    public List<String> mails() {
      return mails;
    }

    public List<String> shipped() {
      return shipped;
    }

    @Idempotent
    @EventListener
    public void addPoints(Paid event) {
      points.add(event.orderNo());
    }

    @Idempotent
    @EventListener
    public void sendMail(Paid event) {
      mails.add(event.orderNo());
    }

    @Idempotent
    @EventListener
    public void onShipped(Shipped event) {
      shipped.add(event.getId());
    }

    @Idempotent
    @EventListener
    public void onRefunded(Refunded event) {
      refunded.add(event.paymentNo());
    }

    public List<String> refunded() {
      return refunded;
    }
  }

  /** Registers the factory of transactional event listeners. */
  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class Transactions {}

  /** Handles the event after the publisher's transaction committed. */
  public static class AfterCommit {
    private final List<String> handled = new CopyOnWriteArrayList<>();

    public List<String> handled() {
      return handled;
    }

    @Idempotent
    @TransactionalEventListener
    public void on(Paid event) {
      handled.add(event.orderNo());
    }
  }

  @Test
  void eachListenerHandlesAnEventOnceHoweverOftenItIsPublished() {
    runner
        .withBean(Loyalty.class)
        .run(
            context -> {
              Loyalty loyalty = context.getBean(Loyalty.class);
              String id = UUID.randomUUID().toString();
              for (int i = 0; i < 3; i++) {
                context.publishEvent(new Paid(id, "A-1", 10));
              }
              context.publishEvent(new Paid(UUID.randomUUID().toString(), "A-2", 10));
              Shipped shipped = new Shipped(UUID.randomUUID().toString());
              context.publishEvent(shipped);
              context.publishEvent(new Shipped(shipped.getId()));

              assertThat(loyalty.points()).containsExactly("A-1", "A-2");
              assertThat(loyalty.mails()).containsExactly("A-1", "A-2");
              assertThat(loyalty.shipped()).containsExactly(shipped.getId());
              context.publishEvent(new Refunded("P-1", 5));
              context.publishEvent(new Refunded("P-1", 5));
              assertThat(loyalty.refunded()).containsExactly("P-1");
            });
  }

  @Test
  void aRedeliveryReadBackDifferentlyIsTheSameEventAndAnotherTypeUnderTheSameIdIsAnother() {
    runner
        .withBean(Loyalty.class)
        .withBean(Overloads.class)
        .run(
            context -> {
              String id = UUID.randomUUID().toString();
              context.publishEvent(new Paid(id, "A-1", 10));
              // as a registry may read it back from JSON: another value where the event's
              // identity says it is the same event is no new request
              context.publishEvent(new Paid(id, "A-1", 1000));
              assertThat(context.getBean(Loyalty.class).points()).containsExactly("A-1");

              Overloads overloads = context.getBean(Overloads.class);
              context.publishEvent(new Paid(id, "A-1", 10));
              context.publishEvent(new Cancelled(id, "A-1", 10));
              context.publishEvent(new Cancelled(id, "A-1", 10));
              assertThat(overloads.handled()).containsExactly("paid", "cancelled");
            });
  }

  /** Paid's twin in shape: the same fields, the same JSON, another event. */
  public record Cancelled(@EventId String eventId, String orderNo, long amount) {}

  /** One method name for two events, each with its own identity under the same value. */
  public static class Overloads {
    private final List<String> handled = new CopyOnWriteArrayList<>();

    @Idempotent(operation = "overloads")
    @EventListener
    public void on(Paid event) {
      handled.add("paid");
    }

    @Idempotent(operation = "overloads")
    @EventListener
    public void on(Cancelled event) {
      handled.add("cancelled");
    }

    public List<String> handled() {
      return handled;
    }
  }

  @Test
  void anEventHasNoCallerItsDeliveriesUnderTwoCallersFindOneRecord() {
    ThreadLocal<String> principal = new ThreadLocal<>();
    runner
        .withBean(Loyalty.class)
        .withBean(IdempotentCallerResolver.class, () -> (method, args) -> principal.get())
        .run(
            context -> {
              String id = UUID.randomUUID().toString();
              principal.set("alice");
              context.publishEvent(new Paid(id, "A-1", 10));
              principal.set("scheduler");
              context.publishEvent(new Paid(id, "A-1", 10));
              principal.remove();
              context.publishEvent(new Paid(id, "A-1", 10));
              assertThat(context.getBean(Loyalty.class).points()).containsExactly("A-1");
            });
  }

  /** An identity on a generic interface, whose accessor has a bridge twin. */
  public interface Identified<T> {
    @EventId
    T id();
  }

  public record Generic(UUID id) implements Identified<UUID> {}

  /** A listener as an ApplicationListener, and one in a controller. */
  public static class Classic implements ApplicationListener<PayloadApplicationEvent<Generic>> {
    private final List<UUID> handled = new CopyOnWriteArrayList<>();

    @Idempotent(key = "#p0.payload.id()")
    @Override
    public void onApplicationEvent(PayloadApplicationEvent<Generic> event) {
      handled.add(event.getPayload().id());
    }

    public List<UUID> handled() {
      return handled;
    }
  }

  @Controller
  public static class ControllerListener {
    private final List<UUID> handled = new CopyOnWriteArrayList<>();

    @Idempotent
    @EventListener
    public void on(Generic event) {
      handled.add(event.id());
    }

    public List<UUID> handled() {
      return handled;
    }
  }

  @Test
  void aGenericIdentityAnApplicationListenerAndAControllersListenerAreEachKeyed() {
    runner
        .withBean(Classic.class)
        .withBean(ControllerListener.class)
        .run(
            context -> {
              UUID id = UUID.randomUUID();
              context.publishEvent(new Generic(id));
              context.publishEvent(new Generic(id));
              assertThat(context.getBean(Classic.class).handled()).containsExactly(id);
              assertThat(context.getBean(ControllerListener.class).handled()).containsExactly(id);
            });
  }

  @Test
  void anEventWithoutItsIdentityIsRefusedBeforeTheListenerRuns() {
    runner
        .withBean(Loyalty.class)
        .run(
            context -> {
              assertThatThrownBy(() -> context.publishEvent(new Paid(null, "A-1", 10)))
                  .isInstanceOf(InvalidKeyException.class);
              assertThatThrownBy(() -> context.publishEvent(new Paid("", "A-1", 10)))
                  .isInstanceOf(InvalidKeyException.class);
              assertThat(context.getBean(Loyalty.class).points()).isEmpty();
            });
  }

  @Test
  void aTransactionalListenerHandlesTheEventOfEachCommitOnce() {
    runner
        .withBean(PlatformTransactionManager.class, ResourcelessTransactions::new)
        .withUserConfiguration(Transactions.class)
        .withBean(AfterCommit.class)
        .run(
            context -> {
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              ApplicationEventPublisher events = context;
              String id = UUID.randomUUID().toString();
              for (int i = 0; i < 2; i++) {
                tx.executeWithoutResult(s -> events.publishEvent(new Paid(id, "A-1", 10)));
              }
              tx.executeWithoutResult(
                  s -> {
                    events.publishEvent(new Paid(UUID.randomUUID().toString(), "A-2", 10));
                    s.setRollbackOnly();
                  });

              assertThat(context.getBean(AfterCommit.class).handled()).containsExactly("A-1");
            });
  }

  /** An event that declares no identity. */
  public record Plain(String orderNo) {}

  /** A listener that names its key needs no declared identity. */
  public static class Keyed {
    private final List<String> handled = new CopyOnWriteArrayList<>();

    public List<String> handled() {
      return handled;
    }

    @Idempotent(key = "#event.orderNo")
    @EventListener
    public void on(Plain event) {
      handled.add(event.orderNo());
    }
  }

  @Test
  void aListenerMayNameItsKey() {
    runner
        .withBean(Keyed.class)
        .run(
            context -> {
              context.publishEvent(new Plain("A-1"));
              context.publishEvent(new Plain("A-1"));
              assertThat(context.getBean(Keyed.class).handled()).containsExactly("A-1");
            });
  }
}
