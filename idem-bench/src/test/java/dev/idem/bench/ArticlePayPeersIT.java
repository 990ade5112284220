package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.bench.article.ArticleLockPayment;
import dev.idem.bench.article.PaymentResult;
import dev.idem.bench.article.ThirdPartyPay;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.redis.RedisIdempotencyStore;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * The article's Redisson-lock pay flow as ported, and Idem's, on the PostgreSQL at {@code
 * IDEM_POSTGRES_URL} and the Redis at {@code IDEM_REDIS_URI}. Interleavings are forced with latches
 * held inside the payment provider.
 */
class ArticlePayPeersIT {

  private static final BigDecimal AMOUNT = new BigDecimal("19.90");

  private final String suffix = UUID.randomUUID().toString().substring(0, 8);
  private final String articleTable = "bench_article_it_lock_" + suffix;
  private final String idemTable = "bench_article_it_idem_" + suffix;
  private final AtomicInteger charges = new AtomicInteger();
  private RedisRig rig;
  private RedissonClient redisson;
  private HikariDataSource pool;
  private volatile CountDownLatch providerEntered = new CountDownLatch(0);
  private volatile CountDownLatch providerRelease = new CountDownLatch(0);
  private final ThirdPartyPay provider =
      (paymentNo, amount) -> {
        charges.incrementAndGet();
        // Read before signalling: the test swaps in an open latch once the first call is inside.
        CountDownLatch release = providerRelease;
        providerEntered.countDown();
        try {
          return release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      };

  @BeforeEach
  void connect() throws SQLException {
    rig = RedisRig.fromEnvironment();
    redisson = Redisson.create(LockScenarios.redissonConfig(rig.uri()));
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(
        System.getenv()
            .getOrDefault(
                "IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
    config.setMaximumPoolSize(4);
    pool = new HikariDataSource(config);
    ArticleLockPayment.createTable(pool, articleTable);
    IdemPayment.createTable(pool, idemTable);
  }

  @AfterEach
  void cleanUp() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + articleTable + ", " + idemTable);
    } finally {
      pool.close();
      redisson.shutdown();
      rig.close();
    }
  }

  @Test
  void articleAnswersARepeatAfterThePaymentWithThatPayment() throws SQLException {
    ArticleLockPayment article = article(ArticleLockPayment.LOCK_LEASE_SECONDS);

    PaymentResult first = article.pay("O-1", AMOUNT);
    PaymentResult repeat = article.pay("O-1", AMOUNT);

    assertThat(first.status()).isEqualTo("SUCCESS");
    assertThat(repeat.paymentNo()).isEqualTo(first.paymentNo());
    assertThat(successes(articleTable, "O-1")).isEqualTo(1);
    assertThat(charges).hasValue(1);
  }

  @Test
  void articleAnswersARepeatDuringThePaymentAsProcessing() throws Exception {
    ArticleLockPayment article = article(ArticleLockPayment.LOCK_LEASE_SECONDS);

    PaymentResult repeat = duringFirstPayment(() -> article.pay("O-2", AMOUNT));

    assertThat(repeat.refusedAsBusy()).isTrue();
    assertThat(successes(articleTable, "O-2")).isEqualTo(1);
  }

  @Test
  void articlePaysTwiceWhenTheFirstCallStallsPastTheLockLease() throws Exception {
    // The first call stalls (a GC pause, a slow network) after its check found no payment and
    // before its insert; meanwhile its 1 s lease runs out and a second call takes the lock.
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    ArticleLockPayment article =
        new ArticleLockPayment(
            redisson,
            stallingFirstInsert(pool, stalled, resume),
            provider,
            articleTable,
            rig.prefix(),
            1);
    CompletableFuture<PaymentResult> first = new CompletableFuture<>();
    Thread payer =
        new Thread(
            () -> {
              try {
                first.complete(article.pay("O-3", AMOUNT));
              } catch (Exception | Error e) {
                first.completeExceptionally(e);
              }
            });
    payer.start();
    PaymentResult second;
    try {
      assertThat(stalled.await(20, TimeUnit.SECONDS)).isTrue();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> !redisson.getLock(rig.prefix() + "pay:lock:O-3").isLocked());
      second = article.pay("O-3", AMOUNT);
    } finally {
      resume.countDown();
      payer.join(TimeUnit.SECONDS.toMillis(30));
    }

    assertThat(second.status()).isEqualTo("SUCCESS");
    assertThat(first.get(1, TimeUnit.SECONDS).status()).isEqualTo("SUCCESS");
    assertThat(first.get().paymentNo()).isNotEqualTo(second.paymentNo());
    assertThat(successes(articleTable, "O-3")).isEqualTo(2);
    assertThat(charges).hasValue(2);
  }

  // A data source whose first INSERT waits, once it has told the test so, until resumed.
  private static DataSource stallingFirstInsert(
      DataSource target, CountDownLatch stalled, CountDownLatch resume) {
    AtomicBoolean armed = new AtomicBoolean(true);
    InvocationHandler connections =
        (proxy, method, args) -> {
          Object result = invoke(method, target, args);
          if (!(result instanceof Connection connection)) {
            return result;
          }
          InvocationHandler statements =
              (p, m, a) -> {
                if (m.getName().equals("prepareStatement")
                    && a[0] instanceof String sql
                    && sql.startsWith("INSERT")
                    && armed.compareAndSet(true, false)) {
                  stalled.countDown();
                  if (!resume.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never resumed the first call");
                  }
                }
                return invoke(m, connection, a);
              };
          return Proxy.newProxyInstance(
              Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, statements);
        };
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, connections);
  }

  private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void idemRefusesARepeatDuringThePaymentAndReplaysItAfter() throws Exception {
    RedisIdempotencyStore store = RedisIdempotencyStore.create(rig.client(), rig.prefix() + "i:");
    try (Idempotency engine = Idempotency.builder(store).build()) {
      IdemPayment idem =
          new IdemPayment(engine, IdempotencyConfig.ofDefaults(), pool, provider, idemTable);

      PaymentResult during = duringFirstPayment(() -> idem.pay("O-4", AMOUNT));
      PaymentResult after = idem.pay("O-4", AMOUNT);

      assertThat(during.refusedAsBusy()).isTrue();
      assertThat(after.status()).isEqualTo("SUCCESS");
      assertThat(after.message()).isEqualTo("replayed");
      assertThat(successes(idemTable, "O-4")).isEqualTo(1);
      assertThat(charges).hasValue(1);
    } finally {
      store.close();
    }
  }

  @Test
  void idemStoresNoSuccessForADeclineAndPaysAfreshOnTheRetry() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    ThirdPartyPay declinesFirst = (paymentNo, amount) -> calls.incrementAndGet() > 1;
    RedisIdempotencyStore store = RedisIdempotencyStore.create(rig.client(), rig.prefix() + "d:");
    try (Idempotency engine = Idempotency.builder(store).build()) {
      IdemPayment idem =
          new IdemPayment(engine, IdempotencyConfig.ofDefaults(), pool, declinesFirst, idemTable);

      assertThatThrownBy(() -> idem.pay("O-5", AMOUNT)).hasMessageContaining("declined");
      PaymentResult retry = idem.pay("O-5", AMOUNT);

      assertThat(retry.status()).isEqualTo("SUCCESS");
      assertThat(retry.message()).isEqualTo("paid");
      assertThat(calls).hasValue(2);
      assertThat(successes(idemTable, "O-5")).isEqualTo(1);
    } finally {
      store.close();
    }
  }

  /** A call that may fail. */
  @FunctionalInterface
  private interface Call {
    PaymentResult run() throws Exception;
  }

  // The first payment of the order (started by the second call's own order number) waits inside
  // the provider until the second call has ended; returns the second call's answer.
  private PaymentResult duringFirstPayment(Call second) throws Exception {
    providerEntered = new CountDownLatch(1);
    providerRelease = new CountDownLatch(1);
    CompletableFuture<PaymentResult> first = new CompletableFuture<>();
    Thread payer =
        new Thread(
            () -> {
              try {
                first.complete(second.run());
              } catch (Exception | Error e) {
                first.completeExceptionally(e);
              }
            });
    payer.start();
    assertThat(providerEntered.await(20, TimeUnit.SECONDS)).isTrue();
    PaymentResult answer;
    try {
      // Calls from here on pass the provider at once.
      providerEntered = new CountDownLatch(0);
      CountDownLatch held = providerRelease;
      providerRelease = new CountDownLatch(0);
      try {
        answer = second.run();
      } finally {
        held.countDown();
      }
    } finally {
      payer.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(first.get(1, TimeUnit.SECONDS).status()).isEqualTo("SUCCESS");
    return answer;
  }

  private ArticleLockPayment article(long leaseSeconds) {
    return new ArticleLockPayment(
        redisson, pool, provider, articleTable, rig.prefix(), leaseSeconds);
  }

  private long successes(String table, String orderNo) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM "
                    + table
                    + " WHERE status = 'SUCCESS' AND order_no = '"
                    + orderNo
                    + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
