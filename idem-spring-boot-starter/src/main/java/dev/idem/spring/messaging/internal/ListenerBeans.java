package dev.idem.spring.messaging.internal;

import dev.idem.core.Deferral;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.StoreCapability;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.autoconfigure.internal.Engines;
import dev.idem.spring.autoconfigure.internal.StoreFactory;
import dev.idem.spring.internal.TransactionOutcomes;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ReflectionUtils;

/**
 * The beans the listener advice works with, looked up at the first message rather than when the
 * post-processor is created, which is too early to depend on them.
 */
public final class ListenerBeans {

  /** A piece of work that may throw checked exceptions. */
  @FunctionalInterface
  public interface Body<T extends @Nullable Object> {
    T call() throws Exception;
  }

  /** How much longer than a lease a copy waits, so that its last claim comes after the lease. */
  private static final Duration TAKE_OVER_MARGIN = Duration.ofSeconds(5);

  private final ConfigurableListableBeanFactory beanFactory;
  private final Function<IdemProperties, IdemProperties.Listeners.Store> store;
  private final Function<IdemProperties, Duration> retention;
  private final String broker;
  private volatile @Nullable Beans beans;

  private record Beans(
      Idempotency idempotency,
      IdemPolicies policies,
      IdemProperties properties,
      @Nullable TransactionTemplate transactions,
      boolean own) {}

  /**
   * @param settings picks the broker's own properties
   * @param broker their prefix, {@code idem.amqp} or {@code idem.kafka}, for messages
   */
  public ListenerBeans(
      ConfigurableListableBeanFactory beanFactory,
      Function<IdemProperties, IdemProperties.Listeners> settings,
      String broker) {
    this(
        beanFactory,
        p -> settings.apply(p).getStore(),
        p -> settings.apply(p).getRetention(),
        broker);
  }

  /**
   * @param store picks where the listeners keep their records
   * @param retention picks how long they are kept unless a policy says otherwise
   * @param prefix the properties' prefix ({@code idem.events}), for messages
   */
  public ListenerBeans(
      ConfigurableListableBeanFactory beanFactory,
      Function<IdemProperties, IdemProperties.Listeners.Store> store,
      Function<IdemProperties, Duration> retention,
      String prefix) {
    this.beanFactory = beanFactory;
    this.store = store;
    this.retention = retention;
    this.broker = prefix;
  }

  public ConfigurableListableBeanFactory beanFactory() {
    return beanFactory;
  }

  /**
   * The consumer of {@code group}: its policy ({@code idem.policies.<group>}), with the broker's
   * retention ({@code idem.amqp.retention}, {@code idem.kafka.retention}) unless the policy names
   * one of its own.
   *
   * @param waitsOutCopies whether a copy in flight elsewhere is waited for, up to its lease and
   *     then taken over, unless the policy names a wait of its own: for a broker that hands a
   *     partition's records to one consumer in turn, where failing the record would only spend the
   *     error handler's retries while a dead consumer's claim runs out
   */
  public IdempotentConsumer consumer(String group, boolean waitsOutCopies) {
    Beans b = beans();
    IdempotencyConfig policy = b.policies().forOperation(group);
    IdempotencyConfig.Builder config = IdempotencyConfig.from(policy);
    IdemProperties.Policy own = b.properties().getPolicies().get(group);
    if (own == null || own.getRetention() == null) {
      config.retention(retention.apply(b.properties()));
    }
    if (waitsOutCopies && (own == null || own.getWait() == null)) {
      config.waitInProgress(policy.lease().plus(TAKE_OVER_MARGIN));
    }
    return new IdempotentConsumer(b.idempotency(), group, config.build());
  }

  /**
   * Runs {@code body} in a transaction (joining the caller's, if any) when the store writes its
   * records in Spring transactions; otherwise runs it as it is.
   */
  public <T extends @Nullable Object> T inTransaction(Body<T> body) throws Exception {
    TransactionTemplate transactions = beans().transactions();
    if (transactions == null) {
      return body.call();
    }
    try {
      return transactions.execute(
          status -> {
            try {
              return body.call();
            } catch (RuntimeException e) {
              throw e;
            } catch (Exception e) {
              throw new CheckedFailure(e);
            }
          });
    } catch (CheckedFailure e) {
      throw (Exception) e.getCause();
    }
  }

  /** The engine the listeners run through: the application's, or a JDBC one of their own. */
  public Idempotency idempotency() {
    return beans().idempotency();
  }

  /**
   * Where the outcome of a listener run now goes: held for the thread's transaction when the store
   * does not write in it, else {@link Deferral#NONE} (stored at once, in the transaction when the
   * store joins it).
   */
  public Deferral deferral() {
    return TransactionOutcomes.deferral(beans().idempotency().store());
  }

  private Beans beans() {
    Beans b = beans;
    if (b == null) {
      synchronized (this) {
        b = beans;
        if (b == null) {
          b = lookUp();
          beans = b;
        }
      }
    }
    return b;
  }

  /**
   * Looks up the beans now rather than at the first message, so that a listener store that cannot
   * be built stops the application's start.
   */
  public void start() {
    beans();
  }

  /** Closes the engine this made for the listeners, if it made one. */
  public void close() {
    Beans b = beans;
    if (b != null && b.own()) {
      b.idempotency().close();
    }
  }

  private Beans lookUp() {
    IdemProperties properties = beanFactory.getBean(IdemProperties.class);
    IdemPolicies policies = beanFactory.getBean(IdemPolicies.class);
    Idempotency idempotency = beanFactory.getBean(Idempotency.class);
    boolean own = false;
    if (store.apply(properties) == IdemProperties.Listeners.Store.JDBC
        && !joinsTransactions(idempotency.store())) {
      idempotency =
          Engines.build(
              StoreFactory.jdbc(properties, beanFactory, broker + ".store"), policies, beanFactory);
      own = true;
      if (!joinsTransactions(idempotency.store())) {
        idempotency.close();
        throw new IllegalStateException(
            broker
                + ".store is jdbc, but idem.jdbc.join-transactions is false: the records would be"
                + " written after the listeners' transactions, not in them");
      }
    }
    TransactionTemplate transactions = null;
    if (joinsTransactions(idempotency.store())) {
      PlatformTransactionManager manager = transactionManager();
      if (manager != null) {
        transactions = new TransactionTemplate(manager);
      } else if (own) {
        throw new IllegalStateException(
            broker
                + ".store is jdbc, but no transaction manager of the application's DataSource was"
                + " found (one PlatformTransactionManager, or one whose resource is that"
                + " DataSource): the dedup records could not commit with the listeners' writes");
      }
    }
    return new Beans(idempotency, policies, properties, transactions, own);
  }

  /**
   * The application's only transaction manager, or else the one whose resource is its DataSource
   * (beside a Kafka transaction manager, say); null when neither is found.
   */
  private @Nullable PlatformTransactionManager transactionManager() {
    PlatformTransactionManager only =
        beanFactory.getBeanProvider(PlatformTransactionManager.class).getIfUnique();
    if (only != null) {
      return only;
    }
    DataSource dataSource = beanFactory.getBeanProvider(DataSource.class).getIfUnique();
    List<PlatformTransactionManager> ofDataSource =
        beanFactory.getBeansOfType(PlatformTransactionManager.class).values().stream()
            .filter(m -> dataSource != null && manages(m, dataSource))
            .toList();
    return ofDataSource.size() == 1 ? ofDataSource.get(0) : null;
  }

  /**
   * Whether {@code manager}'s transactions hold connections of {@code dataSource}: a DataSource's
   * own manager, or one (JPA's, Hibernate's) that exposes its connections as well.
   */
  private static boolean manages(PlatformTransactionManager manager, DataSource dataSource) {
    if (manager instanceof ResourceTransactionManager r && r.getResourceFactory() == dataSource) {
      return true;
    }
    Method getter = ReflectionUtils.findMethod(manager.getClass(), "getDataSource");
    return getter != null
        && getter.getParameterCount() == 0
        && ReflectionUtils.invokeMethod(getter, manager) == dataSource;
  }

  /** Only a store that can write in the caller's transaction gains from one around the listener. */
  private static boolean joinsTransactions(IdempotencyStore store) {
    return store.capabilities().contains(StoreCapability.JOINS_TRANSACTIONS);
  }

  /** Carries a checked exception through {@link TransactionTemplate}. */
  private static final class CheckedFailure extends RuntimeException {
    CheckedFailure(Exception cause) {
      super(cause);
    }
  }
}
